-- prop.openpgp: an ASCII-armored OpenPGP public key checked when a site
-- is read (apt.key): its armor lines here; its base64, its checksum
-- (CRC-24) and the framing of its packets (RFC 4880) by the engine's
-- codec and walker, which the secret store uses too (core.base64_decode,
-- core.crc24, core.openpgp_packets).

local core = require "prop.core"
local args = require "prop.args"

local openpgp = {}

local fmt = string.format

local BEGIN_KEY = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
local END_KEY = "-----END PGP PUBLIC KEY BLOCK-----"

-- An ASCII-armored OpenPGP public key: the armor lines, base64 that
-- decodes, the checksum when there is one, and a first packet that is a
-- public key.  Returns the text with a final newline.
function openpgp.check_public_key(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local lines = {}
   for l in (v:gsub("\r", "") .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
   while #lines > 0 and lines[1]:find("^%s*$") do table.remove(lines, 1) end
   while #lines > 0 and lines[#lines]:find("^%s*$") do table.remove(lines) end
   local bad = what .. " is not an ASCII-armored OpenPGP public key"
   if #lines == 0 or lines[1] ~= BEGIN_KEY then
      if v:find("BEGIN PGP PRIVATE KEY BLOCK", 1, true) then
         return what .. " is a private key: apt needs the public key (gpg --armor --export)"
      end
      return fmt('%s: it must start with the line "%s" (gpg --armor --export KEYID prints one)',
                 bad, BEGIN_KEY)
   end
   if lines[#lines] ~= END_KEY then
      return fmt('%s: its last line must be "%s"', bad, END_KEY)
   end
   local i = 2
   while i < #lines and lines[i]:find("^[%w-]+: ") do i = i + 1 end
   if i < #lines and lines[i] == "" then i = i + 1 end
   local body, sum = {}, nil
   for j = i, #lines - 1 do
      local l = lines[j]:gsub("%s+$", "")
      if l:find("^=") and j == #lines - 1 then
         sum = l:sub(2)
      elseif l ~= "" then
         body[#body + 1] = l
      end
   end
   local data = core.base64_decode(table.concat(body))
   if data == nil or data == "" then
      return fmt("%s: its body (line %d on) is not base64", bad, i)
   end
   if sum then
      local s = core.base64_decode(sum)
      if s == nil or #s ~= 3 then return fmt("%s: its checksum line is not valid", bad) end
      local want = (s:byte(1) << 16) | (s:byte(2) << 8) | s:byte(3)
      if core.crc24(data) ~= want then
         return fmt("%s: its checksum does not match (the key was cut or changed)", bad)
      end
   end
   local tags, perr = core.openpgp_packets(data)
   if perr then return fmt("%s: %s", bad, perr) end
   if tags[1] ~= 6 then
      return fmt("%s: its first packet is not a public key", bad)
   end
   return nil, table.concat(lines, "\n") .. "\n"
end

return openpgp
