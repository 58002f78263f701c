/** Rules and files for the YARA oracles (against the yara CLI, and native against WebAssembly). */
export const RULES = String.raw`
import "math"

rule text_plain : family_a { meta: description = "plain text" strings: $a = "malware" condition: $a }
rule hex_jumps { strings: $h = { 4D 5A ?? ?? [2-4] 50 45 } $h2 = { 6C 6F [1] 75 70 } condition: any of them }
rule regexes { strings: $r = /https?:\/\/[a-z0-9.]+\/[a-z]+/ $r2 = /ab[0-9]{2,3}cd/ condition: any of them }
rule case_and_width { strings: $n = "SpyWare" nocase $w = "secret" wide $wa = "token" wide ascii condition: any of them }
rule fullword_and_xor { strings: $f = "key" fullword $x = "evil" xor(1-3) condition: any of them }
rule counts { strings: $a = "malware" condition: #a >= 2 }
rule at_offset { strings: $mz = "MZ" condition: $mz at 0 }
rule in_range { strings: $a = "malware" condition: $a in (0..64) }
rule first_offset { strings: $a = "malware" condition: @a[1] < 100 }
rule small_file : size { condition: filesize < 1KB }
rule entropy { condition: math.entropy(0, filesize) > 7.0 }
rule meta_only : tagged another { meta: author = "loupe" weight = 3 condition: filesize > 0 }
`;

/** Private rules gate others but are never reported; global rules gate every rule of the file. */
export const PRIVATE_GLOBAL_RULES = `
private rule has_mz { strings: $mz = "MZ" condition: $mz at 0 }
private rule mentions_malware { strings: $m = "malware" condition: $m }
global rule not_empty { condition: filesize > 0 }
global private rule under_100k { condition: filesize < 100KB }
rule pe_like { strings: $pe = "PE" condition: has_mz and $pe }
rule talks_of_malware { condition: mentions_malware }
rule plain { strings: $k = "key" condition: $k }
rule anything { condition: true }
`;

function xorBytes(text: string, key: number): Buffer {
  return Buffer.from([...Buffer.from(text)].map((b) => b ^ key));
}

export function corpus(): Record<string, Buffer> {
  let seed = 1234;
  const random = (n: number) =>
    Buffer.from(
      Array.from({ length: n }, () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed & 0xff;
      }),
    );
  return {
    "text.txt": Buffer.from(
      "some malware here, and more malware. See http://evil.example/path ab123cd SPYWARE key keys",
    ),
    "pe.bin": Buffer.concat([Buffer.from("MZ\x90\x00\x03\x00\x00PE\x00\x00lo\x00up", "latin1"), random(300)]),
    "wide.bin": Buffer.concat([Buffer.from("secret token", "utf16le"), Buffer.from(" token ")]),
    "xor.bin": Buffer.concat([random(50), xorBytes("evil", 2), random(50), Buffer.from("malware")]),
    "random.bin": random(200_000),
    "empty.bin": Buffer.alloc(0),
  };
}
