-- prop.openpgp: an armored OpenPGP public key checked when a site is read
-- (apt.key), through the engine's base64 codec, CRC-24 and packet walker
-- (core.base64_decode, core.crc24, core.openpgp_packets).
local T = require "check"
local P = prop_module "openpgp"
local core = prop_module "core"

-- A real key: gpg --quick-gen-key (ed25519), gpg --armor --export.
local BODY = {
   "mDMEaxasSRYJKwYBBAHaRw8BAQdAj0pKoZOBsNozoEouKC/a1mf2s1mrC+5dyplD",
   "qY1Tbwq0HXByb3AgdGVzdCA8dEBleGFtcGxlLmludmFsaWQ+iJAEExYIADgWIQQE",
   "+j+/S4tT11RiH38AK+7cYSIQiAUCaxasSQIbAwULCQgHAgYVCgkICwIEFgIDAQIe",
   "AQIXgAAKCRAAK+7cYSIQiG0JAQCd7KK82uKNGLOa5rPec7CH/X4a1GVZy/lS+tfQ",
   "xKVcrAEAwzqUoFCtSHghs1JyVOOQipYTORsfg1CO2Yk4hYB0Ygk=",
}
local function armor(body, sum, first, last)
   local lines = { first or "-----BEGIN PGP PUBLIC KEY BLOCK-----", "" }
   for _, l in ipairs(body) do lines[#lines + 1] = l end
   if sum then lines[#lines + 1] = sum end
   lines[#lines + 1] = last or "-----END PGP PUBLIC KEY BLOCK-----"
   return table.concat(lines, "\n") .. "\n"
end
local KEY = armor(BODY, "=lJm6")
local BAD = "key is not an ASCII-armored OpenPGP public key"

-- The engine's pieces, as recipes see them.
T.eq(core.base64_decode("YWJj"), "abc", "base64_decode: bytes")
T.eq(core.base64_decode(""), nil, "base64_decode: nothing is not base64")
T.eq(core.base64_decode("YWJ"), nil, "base64_decode: not a whole group")
T.eq(core.base64_decode("YW=j"), nil, "base64_decode: padding inside")
T.eq(core.base64_decode("YW\0j"), nil, "base64_decode: a NUL byte")
T.eq(core.crc24("abc"), 0xBA1C7B, "crc24: as gpg --enarmor writes it (=uhx7)")
T.eq(core.openpgp_packets("\xb4\x01a\x98\x00"), { 13, 6 }, "openpgp_packets: the tags")
T.eq({ core.openpgp_packets("\xb4\x01a\x10") }, { nil, "byte 4 does not start a packet" },
     "openpgp_packets: a byte that starts no packet, by its place")
T.eq({ core.openpgp_packets("\xb4\x05a") }, { nil, "it ends inside a packet (cut short?)" },
     "openpgp_packets: a body cut short")
T.eq({ core.openpgp_packets("\xb5\x00") }, { nil, "it ends inside a packet header (cut short?)" },
     "openpgp_packets: a header cut short")
T.eq({ core.openpgp_packets("\xd2\xe1ab\x01c") },
     { nil, "a packet of partial lengths, which keys do not have" }, "openpgp_packets: partial")
T.eq({ core.openpgp_packets("\xa7abc") }, { nil, "a packet of indeterminate length" },
     "openpgp_packets: indeterminate")

-- The key whole: ok, and the text comes back with a final newline.
local err, text = P.check_public_key(KEY, "key")
T.eq({ err, text }, { nil, KEY }, "a real key: ok")
err, text = P.check_public_key(armor(BODY), "key")
T.eq(err, nil, "a real key without its checksum line: ok")
T.eq(select(2, P.check_public_key(KEY:gsub("\n$", ""), "key")), KEY, "the final newline added")

-- What is wrong with it, in words.
T.err(P.check_public_key(armor(BODY, "=lJm7"), "key"),
      BAD .. ": its checksum does not match (the key was cut or changed)", "another checksum")
T.err(P.check_public_key(armor(BODY, "=lJm"), "key"), BAD .. ": its checksum line is not valid",
      "a checksum line that is not one")
local cut = { BODY[1], BODY[2] }
T.err(P.check_public_key(armor(cut), "key"), BAD .. ": it ends inside a packet (cut short?)",
      "a key cut short, without its checksum")
T.err(P.check_public_key(armor(cut, "=lJm6"), "key"),
      BAD .. ": its checksum does not match", "a key cut short, with its checksum")
local garbled = { BODY[1], "!!!!" .. BODY[2]:sub(5), BODY[3], BODY[4], BODY[5] }
T.err(P.check_public_key(armor(garbled), "key"), BAD .. ": its body (line 3 on) is not base64",
      "a body that is not base64")
T.err(P.check_public_key(armor({ "tAFh" }, "=eMBy"), "key"),
      BAD .. ": its first packet is not a public key", "a user id alone")
T.err(P.check_public_key(armor(BODY, nil, "-----BEGIN PGP PRIVATE KEY BLOCK-----"), "key"),
      "key is a private key", "a private key")
T.err(P.check_public_key(armor(BODY, nil, nil, "-----END PGP SIGNATURE-----"), "key"),
      BAD .. ': its last line must be "-----END PGP PUBLIC KEY BLOCK-----"', "the wrong end")
T.err(P.check_public_key("ssh-ed25519 AAAA", "key"), BAD .. ": it must start with the line",
      "not armored at all")

T.done()
