// Investigate: the type of a value as a person types it (hash lengths, IPs, CIDR, URLs, domains,
// e-mails, CVE). Only a guess for the form: the select stays an override and the server validates.
window.loupeDetect = (() => {
  const HASHES = { 32: "MD5", 40: "SHA1", 64: "SHA256" };
  const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  const DOMAIN =
    /^(?=.{1,253}\.?$)([a-z0-9_](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]\.?$/i;

  function isIpv6(v) {
    if (!v.includes(":") || !/^[0-9a-f:.]+$/i.test(v)) return false;
    try {
      return new URL(`http://[${v}]/`).hostname.length > 2;
    } catch {
      return false;
    }
  }

  return (raw) => {
    const v = raw.trim();
    if (!v || v.length > 2048) return undefined;
    if (/^[0-9a-f]+$/i.test(v) && HASHES[v.length]) return HASHES[v.length];
    if (/^CVE-\d{4}-\d{4,}$/i.test(v)) return "CVE";
    const cidr = /^(.+)\/(\d{1,3})$/.exec(v);
    if (
      cidr &&
      ((IPV4.test(cidr[1]) && Number(cidr[2]) <= 32) || (isIpv6(cidr[1]) && Number(cidr[2]) <= 128))
    )
      return "CIDR";
    if (IPV4.test(v)) return "IPV4";
    if (isIpv6(v)) return "IPV6";
    if (/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v)) return "URL";
    if (/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)) return "EMAIL";
    if (DOMAIN.test(v)) return "DOMAIN";
    return undefined;
  };
})();
