/** What the host list fields take, one entry per line (commas accepted too). */
export const sourceHostsHint =
  "One per line: cdn.example.com (and its subdomains), *.example.com, https://img.example.com:8443, * for any public host, local for the server's local folder. Empty refuses every remote source.";
export const refererHostsHint =
  "One per line: example.com, *.example.com or *. Empty allows any page (or none) to embed the images.";
