/**
 * The contract's signing test vectors (shared/design/contract.md §2, verbatim): the one list every
 * signer is checked against, the server's, the client kit's and the documented snippets in other
 * languages.
 */
export const VECTOR_SECRET = "sk_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";

export interface SigningVector {
  operations: string;
  source: string;
  exp?: number;
  signature: string;
}

export const SIGNING_VECTORS: readonly SigningVector[] = [
  { operations: "w_800,f_webp", source: "images.example.com/photo.jpg", signature: "n3pTmRH44P9kE4JOowcbZdJRUCOYxXis" },
  {
    operations: "w_800,f_webp",
    source: "images.example.com/photo.jpg",
    exp: 1706500000,
    signature: "h_lXxUEYefTOzUjHQOcmBfifgpOJgM9J",
  },
  { operations: "_", source: "cdn.mysite.com/banner.png", signature: "ro_LPVvuQ8rdjA_pU7jw5DG1R8hvkDyv" },
  {
    operations: "s_1200x630,f_avif,q_80",
    source: "cdn.example.com/og/hero.png",
    exp: 2000000000,
    signature: "jHcriJUlA6O2EZ2vQjd4b2uFIXdgI9oo",
  },
  { operations: "w_200", source: "cdn.example.com/café.jpg", signature: "tlr_IuDEXxtVm0cYKbFdZLvX0hxLIsVI" },
  {
    operations: "embed,s_300x200",
    source: "https://cdn.example.com/a.png",
    signature: "3JN2zezUTVkOvcCmrYiMajmGlWd-UQIN",
  },
  { operations: "w_100", source: "cdn.example.com:8443/a%20b.png", signature: "8vSNlBeE18OpGYAoANewl2Ozrh77utZw" },
];

/** The key pair the URL-building checks use around the vectors' secret. */
export const VECTOR_KEYS = {
  baseUrl: "https://img.example.com/",
  projectSlug: "shop",
  publicKey: "pk_AAAAAAAAAAAAAAAAAAAAAA",
  secretKey: VECTOR_SECRET,
};
