/**
 * A software security key for tests that drive the passkey endpoints over HTTP, without a browser: it answers
 * the JSON options the server hands out with the JSON @simplewebauthn/browser would post back. ES256 keys,
 * attestation "none"; each credential (key, id, user handle, counter) lives only in this object.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { encodeCBOR, type CBORType } from "@levischuck/tiny-cbor";

export interface SoftAuthenticatorOptions {
  origin: string;
  rpId: string;
  /** Sets the UV flag; defaults to true. */
  userVerified?: boolean;
}

/** Per-ceremony overrides for attack tests: what goes in clientDataJSON.origin, the rpIdHash and the UV flag. */
export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
}

interface Answer<R> {
  id: string;
  rawId: string;
  type: "public-key";
  response: R;
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: "platform";
}

export type RegistrationResponse = Answer<{
  clientDataJSON: string;
  attestationObject: string;
  transports: "internal"[];
  publicKeyAlgorithm: -7;
  authenticatorData: string;
  publicKey: string;
}>;

export type AuthenticationResponse = Answer<{
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
  userHandle: string;
}>;

export interface SoftAuthenticator {
  register(options: unknown, overrides?: CeremonyOverrides): Promise<RegistrationResponse>;
  authenticate(options: unknown, credentialId?: string, overrides?: CeremonyOverrides): Promise<AuthenticationResponse>;
  /** The credential ids held, base64url, oldest first. */
  readonly credentials: string[];
}

const FLAG = { UP: 0x01, UV: 0x04, AT: 0x40 } as const; // authenticatorData flag bits

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string): Buffer => createHash("sha256").update(data).digest();

/** Reads a nested field of the server's JSON without trusting its shape. */
function field(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>(
    (at, key) => (at !== null && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined),
    value,
  );
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") throw new Error(`soft authenticator: options lack ${what}`);
  return value;
}

/** Ids listed in allowCredentials / excludeCredentials. */
function listedIds(value: unknown): string[] {
  const ids = Array.isArray(value) ? value.map((entry) => field(entry, "id")) : [];
  return ids.filter((id): id is string => typeof id === "string");
}

/** The PublicKeyCredential fields both ceremonies share, as @simplewebauthn/browser serializes them. */
function answer<R>(rawId: Buffer, response: R): Answer<R> {
  const id = b64url(rawId);
  return {
    id,
    rawId: id,
    type: "public-key",
    response,
    clientExtensionResults: {},
    authenticatorAttachment: "platform",
  };
}

export function createSoftAuthenticator(options: SoftAuthenticatorOptions): SoftAuthenticator {
  const held: { id: Buffer; privateKey: KeyObject; userHandle: string; counter: number }[] = [];

  const clientData = (type: "webauthn.create" | "webauthn.get", challenge: string, over: CeremonyOverrides): Buffer =>
    Buffer.from(JSON.stringify({ type, challenge, origin: over.origin ?? options.origin, crossOrigin: false }));

  // rpIdHash | flags | signCount (big endian), the part every authenticatorData starts with.
  const authDataHead = (over: CeremonyOverrides, flags: number, counter: number): Buffer => {
    const tail = Buffer.alloc(5);
    tail.writeUInt8(flags | FLAG.UP | ((over.userVerified ?? options.userVerified ?? true) ? FLAG.UV : 0), 0);
    tail.writeUInt32BE(counter, 1);
    return Buffer.concat([sha256(over.rpId ?? options.rpId), tail]);
  };

  return {
    get credentials() {
      return held.map((credential) => b64url(credential.id));
    },

    async register(creation, over = {}) {
      // A real key refuses to register twice for an account the server says it already holds.
      const mine = new Set(held.map((credential) => b64url(credential.id)));
      if (listedIds(field(creation, "excludeCredentials")).some((id) => mine.has(id))) {
        throw new Error("soft authenticator: InvalidStateError, a held credential is in excludeCredentials");
      }
      const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const jwk = publicKey.export({ format: "jwk" });
      const coseKey = new Map<string | number, CBORType>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, new Uint8Array(Buffer.from(text(jwk.x, "x"), "base64url"))],
        [-3, new Uint8Array(Buffer.from(text(jwk.y, "y"), "base64url"))],
      ]);
      const credential = {
        id: randomBytes(32),
        privateKey,
        userHandle: text(field(creation, "user", "id"), "user.id"),
        counter: 0,
      };
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credential.id.length);
      const authData = Buffer.concat([
        authDataHead(over, FLAG.AT, credential.counter),
        Buffer.alloc(16), // AAGUID: zeros, as "none" attestation carries no make/model
        idLength,
        credential.id,
        encodeCBOR(coseKey),
      ]);
      const attestation = new Map<string | number, CBORType>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", new Uint8Array(authData)],
      ]);
      held.push(credential);
      return answer<RegistrationResponse["response"]>(credential.id, {
        clientDataJSON: b64url(clientData("webauthn.create", text(field(creation, "challenge"), "challenge"), over)),
        attestationObject: b64url(encodeCBOR(attestation)),
        transports: ["internal"],
        publicKeyAlgorithm: -7,
        authenticatorData: b64url(authData),
        publicKey: b64url(publicKey.export({ format: "der", type: "spki" })),
      });
    },

    async authenticate(request, credentialId, over = {}) {
      const allowed = listedIds(field(request, "allowCredentials"));
      // An explicit id wins (attack tests present credentials the server did not ask for); then the first allowed
      // credential held; an empty allow list is a discoverable-credential request, answered with the newest.
      const wanted = credentialId ?? held.map((c) => b64url(c.id)).find((id) => allowed.includes(id));
      const credential = wanted ? held.find((c) => b64url(c.id) === wanted) : allowed.length ? undefined : held.at(-1);
      if (!credential) throw new Error(`soft authenticator: holds no credential for ${wanted ?? allowed.join(", ")}`);
      credential.counter += 1; // counts every use, as a key does, whether or not the server accepts it
      const data = clientData("webauthn.get", text(field(request, "challenge"), "challenge"), over);
      const authData = authDataHead(over, 0, credential.counter);
      // ES256: node signs with DER-encoded ECDSA by default, the form WebAuthn expects.
      const signature = sign("sha256", Buffer.concat([authData, sha256(data)]), credential.privateKey);
      return answer<AuthenticationResponse["response"]>(credential.id, {
        clientDataJSON: b64url(data),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      });
    },
  };
}
