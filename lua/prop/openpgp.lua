-- prop.openpgp: an ASCII-armored OpenPGP public key checked when a site
-- is read (apt.key): its armor lines, its base64, its checksum (CRC-24)
-- and the framing of its packets (RFC 4880).

local args = require "prop.args"

local openpgp = {}

local fmt = string.format

local b64 = {}
do
   local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
   for i = 1, 64 do b64[chars:byte(i)] = i - 1 end
end

-- The bytes of base64 text (blanks already removed); nil when it is not
-- base64.
local function unbase64(s)
   if #s % 4 ~= 0 then return nil end
   local out, n = {}, 0
   for i = 1, #s, 4 do
      local a, b, c, d = s:byte(i, i + 3)
      local va, vb = b64[a], b64[b]
      local vc = c ~= 61 and b64[c] or nil
      local vd = d ~= 61 and b64[d] or nil
      if va == nil or vb == nil or (c ~= 61 and vc == nil) or (d ~= 61 and vd == nil)
         or (c == 61 and d ~= 61) or ((c == 61 or d == 61) and i + 3 < #s) then
         return nil
      end
      local v = (va << 18) | (vb << 12) | ((vc or 0) << 6) | (vd or 0)
      n = n + 1
      out[n] = string.char((v >> 16) & 0xff)
      if vc then n = n + 1; out[n] = string.char((v >> 8) & 0xff) end
      if vd then n = n + 1; out[n] = string.char(v & 0xff) end
   end
   return table.concat(out)
end

-- OpenPGP's armor checksum (RFC 4880, 6.1).
local function crc24(data)
   local crc = 0xB704CE
   for i = 1, #data do
      crc = crc ~ (data:byte(i) << 16)
      for _ = 1, 8 do
         crc = crc << 1
         if crc & 0x1000000 ~= 0 then crc = crc ~ 0x1864CFB end
      end
   end
   return crc & 0xFFFFFF
end

-- The tags of the OpenPGP packets of data (RFC 4880, 4.2), or nil and
-- why they do not fill it exactly (a key cut short, or trailing bytes).
local function packets(data)
   local tags, pos, n = {}, 1, #data
   while pos <= n do
      local b = data:byte(pos)
      if b & 0x80 == 0 then return nil, fmt("byte %d does not start a packet", pos) end
      local tag, len, hdr
      if b & 0x40 == 0 then -- old format: the length's size in the tag byte
         tag = (b >> 2) & 0x0f
         local size = ({ [0] = 1, 2, 4 })[b & 3]
         if size == nil then return nil, "a packet of indeterminate length" end
         if pos + size > n then return nil, "it ends inside a packet header (cut short?)" end
         len = 0
         for k = 1, size do len = (len << 8) | data:byte(pos + k) end
         hdr = 1 + size
      else
         tag = b & 0x3f
         local o1 = data:byte(pos + 1)
         if o1 == nil then return nil, "it ends inside a packet header (cut short?)" end
         if o1 < 192 then
            len, hdr = o1, 2
         elseif o1 < 224 then
            local o2 = data:byte(pos + 2)
            if o2 == nil then return nil, "it ends inside a packet header (cut short?)" end
            len, hdr = ((o1 - 192) << 8) + o2 + 192, 3
         elseif o1 == 255 then
            if pos + 5 > n then return nil, "it ends inside a packet header (cut short?)" end
            local a, b2, c, d = data:byte(pos + 2, pos + 5)
            len, hdr = (a << 24) | (b2 << 16) | (c << 8) | d, 6
         else
            return nil, "a packet of partial lengths, which keys do not have"
         end
      end
      tags[#tags + 1] = tag
      pos = pos + hdr + len
      if pos - 1 > n then return nil, "it ends inside a packet (cut short?)" end
   end
   return tags
end

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
   local data = unbase64(table.concat(body))
   if data == nil or data == "" then
      return fmt("%s: its body (line %d on) is not base64", bad, i)
   end
   if sum then
      local s = unbase64(sum)
      if s == nil or #s ~= 3 then return fmt("%s: its checksum line is not valid", bad) end
      local want = (s:byte(1) << 16) | (s:byte(2) << 8) | s:byte(3)
      if crc24(data) ~= want then
         return fmt("%s: its checksum does not match (the key was cut or changed)", bad)
      end
   end
   local tags, perr = packets(data)
   if perr then return fmt("%s: %s", bad, perr) end
   if tags[1] ~= 6 then
      return fmt("%s: its first packet is not a public key", bad)
   end
   return nil, table.concat(lines, "\n") .. "\n"
end

return openpgp
