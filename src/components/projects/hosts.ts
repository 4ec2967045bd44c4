/** Host lists are edited one entry per line (commas accepted too). */
export const parseHostList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
export const formatHostList = (hosts: string[]) => hosts.join("\n");

export const sourceHostsHint =
  "One per line: cdn.example.com (and its subdomains), *.example.com, https://img.example.com:8443, * for any public host, local for the server's local folder. Empty refuses every remote source.";
export const refererHostsHint =
  "One per line: example.com, *.example.com or *. Empty allows any page (or none) to embed the images.";
