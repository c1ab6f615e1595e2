-- prop.ssh: SSH host keys as facts of the site.
--
-- A host's public key is info (ssh.host_key), so that every other host
-- can trust it without trust-on-first-use (ssh.known_hosts); its private
-- half is a secret in the site's store (ssh.host_keys installs both).

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local file = require "prop.file"
local service = require "prop.service"

local ssh = {}

local fmt, concat = string.format, table.concat

local impl = { known_hosts = {}, authorized_keys = {}, authorized_keys_absent = {},
               sshd_config = {}, sshd_reload = {}, user_keypair = {},
               host_keys_regenerated = {} }

-- The key types, with the algorithm name their public keys start with.
local algorithms = {
   ed25519 = "ssh-ed25519",
   rsa = "ssh-rsa",
   ecdsa = "ecdsa-sha2-nistp256",
   dsa = "ssh-dss",
}
local types = { "ed25519", "rsa", "ecdsa", "dsa" }

local function check_type(v, what)
   if type(v) == "string" and algorithms[v] then return nil, v end
   return fmt("%s must be one of ed25519, rsa, ecdsa, dsa, got %s%s", what, args.got(v),
              type(v) == "string" and args.did_you_mean(v, types) or "")
end

-- "ALGORITHM BASE64 [comment]" for a key of type t: the first two words.
local function check_public(t, v, what)
   if type(v) ~= "string" then return fmt("%s must be a public key line, got %s", what, args.got(v)) end
   local alg, data = v:match("^%s*(%S+)%s+([A-Za-z0-9+/]+=*)")
   if not alg then
      return fmt('%s %s is not a public key such as "ssh-ed25519 AAAAC3Nza..."', what, args.show(v))
   end
   local want = algorithms[t]
   if want and alg ~= want and not (t == "ecdsa" and alg:find("^ecdsa%-sha2%-")) then
      return fmt("%s is a %s key, not %s", what, alg, t)
   end
   return nil, alg .. " " .. data
end

local function info_key(t) return "ssh.hostkey." .. t end

--[[ ssh.host_key(type, public)
  Info: ssh.hostkey.TYPE = the public key ("ALGORITHM BASE64", the
  comment dropped).  type: ed25519, rsa, ecdsa or dsa.  Other hosts'
  ssh.known_hosts list it under the host's names and addresses.
  Example:
    ssh.host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI...")
]]
function ssh.host_key(t, public, opts)
   local desc = "ssh host key " .. (type(t) == "string" and t or "?")
   local terr, tt = check_type(t, "type")
   local perr, p
   if not terr then perr, p = check_public(tt, public, "public") end
   local msg = args.join("ssh.host_key", terr, perr, (args.options(opts, {}, "ssh.host_key")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, info = { info_key(tt), p }, info_only = true,
                     norevert = "ssh.host_key is information about the host; it has nothing to revert" }
end

--[[ ssh.host_keys { TYPE = public, ... }
  DebianLike.  For each type: the info of ssh.host_key, the public key in
  /etc/ssh/ssh_host_TYPE_key.pub (0644) and the private key, from the
  secret ssh_host_TYPE_key of the site's store (set for this host with
  prop secret set SITE ssh_host_TYPE_key --host HOST < the key file), in
  /etc/ssh/ssh_host_TYPE_key (0600); ssh is restarted when one changed.
  Claims: both files of each type, package openssh-server.
  Example:
    ssh.host_keys { ed25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI..." }
]]
function ssh.host_keys(keys)
   local desc = "ssh host keys"
   if type(keys) ~= "table" or next(keys) == nil then
      return core.invalid(desc, "ssh.host_keys: give the public keys by type, such as "
                                .. '{ ed25519 = "ssh-ed25519 AAAA..." }, got ' .. args.got(keys))
   end
   local ts = {}
   for t in pairs(keys) do
      local err = check_type(t, "key type")
      if err then return core.invalid(desc, "ssh.host_keys: " .. err) end
      ts[#ts + 1] = t
   end
   table.sort(ts)
   local parts = {}
   for _, t in ipairs(ts) do
      local err, p = check_public(t, keys[t], fmt("the %s key", t))
      if err then return core.invalid(desc, "ssh.host_keys: " .. err) end
      local base = "/etc/ssh/ssh_host_" .. t .. "_key"
      parts[#parts + 1] = ssh.host_key(t, p)
      parts[#parts + 1] = file.has_content(base, core.secret("ssh_host_" .. t .. "_key"),
                                           { mode = "0600", owner = "root", group = "root" })
      parts[#parts + 1] = file.has_content(base .. ".pub", p .. "\n", { mode = "0644" })
   end
   local restart = service.restarted "ssh"
   return core.props(parts):on_change(restart):describe(desc .. " " .. concat(ts, " "))
end

-- ---------------------------------------------------------------------
-- Host keys made anew, once.

local REGEN_MARKER = "/etc/ssh/.prop-host-keys-regenerated"

-- The private host key files of /etc/ssh (ssh_host_TYPE_key), sorted.
local function host_key_files(sys)
   local r = sys:query({ "find", "/etc/ssh", "-maxdepth", "1", "-name", "ssh_host_*_key" })
   if r.code ~= 0 then
      R.fail("ssh.host_keys_regenerated: cannot list /etc/ssh: %s", R.tail(r.stderr or "", 1))
   end
   local files = {}
   for l in (r.stdout or ""):gmatch("[^\n]+") do files[#files + 1] = l end
   table.sort(files)
   return files
end

-- The public key ssh-keygen -y derives from a private key file, and
-- what the .pub beside it says (both "ALGORITHM BASE64"), or nil and why.
local function derived_public(sys, path)
   local r = sys:query({ "ssh-keygen", "-y", "-f", path })
   if r.code ~= 0 then
      return nil, fmt("ssh-keygen -y -f %s fails: %s", path,
                      R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 1))
   end
   return (r.stdout or ""):match("^%s*(%S+%s+%S+)")
end

-- Regenerated means: the marker exists (it is written once the new keys
-- are made) and every host key file is there.  Without the marker, the
-- old keys (whoever made them: an image, the package's postinst) are
-- removed and ssh-keygen -A makes every default type anew.  With it, only
-- missing keys are made (ssh-keygen -A makes those alone).
function impl.host_keys_regenerated.ensure(sys)
   local what = "ssh.host_keys_regenerated"
   if not sys:exists("/etc/ssh") and not sys.dry then
      R.fail("%s: /etc/ssh does not exist (install openssh-server first)", what)
   end
   local marker = sys:stat(REGEN_MARKER)
   if marker and marker.type ~= "file" then R.fail("%s: %s is not a file", what, REGEN_MARKER) end
   local files = host_key_files(sys)
   if marker then
      local missing, recorded = {}, sys:read(REGEN_MARKER) or ""
      for _, t in ipairs(types) do
         if recorded:find("\n" .. t .. "\n", 1, true) then
            local f = "/etc/ssh/ssh_host_" .. t .. "_key"
            if not sys:exists(f) or not sys:exists(f .. ".pub") then missing[#missing + 1] = f end
         end
      end
      if #missing == 0 then return "ok" end
      R.run(sys, what, { "ssh-keygen", "-A" })
      sys:note((sys.dry and "would make " or "made ") .. concat(missing, ", "))
      return "changed"
   end
   for _, f in ipairs(files) do
      sys:remove(f)
      if sys:exists(f .. ".pub") then sys:remove(f .. ".pub") end
   end
   R.run(sys, what, { "ssh-keygen", "-A" })
   local made = {}
   for _, t in ipairs(types) do
      if sys.dry or sys:exists("/etc/ssh/ssh_host_" .. t .. "_key") then made[#made + 1] = t end
   end
   sys:write(REGEN_MARKER, "host keys made by ssh-keygen -A, once; remove this file to make them "
                           .. "anew\n" .. concat(made, "\n") .. "\n", { mode = tonumber("0644", 8) })
   sys:note(fmt("%s the host keys (%s), old ones removed", sys.dry and "would make" or "made",
                #made > 0 and concat(made, " ") or "ssh-keygen -A's types"))
   return "changed"
end

-- The probe: each host key's public half is the one ssh-keygen -y derives
-- from its private half.
function impl.host_keys_regenerated.verify(sys)
   local files = host_key_files(sys)
   if #files == 0 then return false, "no host key in /etc/ssh" end
   for _, f in ipairs(files) do
      local d, err = derived_public(sys, f)
      if d == nil then return false, err end
      local pub = (sys:read(f .. ".pub") or ""):match("^%s*(%S+%s+%S+)")
      if pub ~= d then
         return false, fmt("%s.pub is not the public half of %s", f, f)
      end
   end
   return true
end

--[[ ssh.host_keys_regenerated()
  DebianLike, not revertable (the old keys are gone).
  New SSH host keys, once: the host keys an image or a package made (the
  same on every copy of the image) are removed and ssh-keygen -A makes
  every default type anew; a marker, /etc/ssh/.prop-host-keys-regenerated,
  records it, so that a second run changes nothing.  A key removed later
  is made again (ssh-keygen -A makes the missing ones only).  Remove the
  marker to have them made anew.  sshd is restarted (service "ssh") when
  they changed.
  Claims: the marker file; the host key files are generated.
  Verify: each /etc/ssh/ssh_host_*_key.pub is the public half of its
  private key (ssh-keygen -y).
  Example:
    ssh.host_keys_regenerated()
]]
function ssh.host_keys_regenerated(...)
   local desc = "ssh host keys regenerated"
   if select("#", ...) > 0 then
      return core.invalid(desc, "ssh.host_keys_regenerated takes no argument")
   end
   local claims = { claim.file_generated(REGEN_MARKER, "the record of ssh.host_keys_regenerated") }
   for _, t in ipairs({ "ed25519", "rsa", "ecdsa" }) do
      local f = "/etc/ssh/ssh_host_" .. t .. "_key"
      claims[#claims + 1] = claim.file_generated(f, "ssh-keygen -A")
      claims[#claims + 1] = claim.file_generated(f .. ".pub", "ssh-keygen -A")
   end
   local leaf = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.host_keys_regenerated,
                           claims = claims,
                           norevert = "ssh.host_keys_regenerated has no revert action: the old keys "
                                      .. "are gone" }
   return core.props({ leaf }):on_change(service.restarted "ssh"):describe(desc)
end

-- ---------------------------------------------------------------------
-- known_hosts.

-- The lines of a known_hosts file for every host of the site that
-- declares a key: its name, aliases and addresses (as [name]:port when
-- it is reached on another port than 22), then the key.
local function known_hosts_text()
   local lines = {}
   for _, h in ipairs(core.hosts()) do
      local names, seen = {}, {}
      local port = h:info("connect.port")[1]
      local function add(n)
         if port and port ~= "22" then n = "[" .. n .. "]:" .. port end
         if not seen[n] then seen[n], names[#names + 1] = true, n end
      end
      add(h.name)
      for _, a in ipairs(h:info "connect.address") do add(a) end
      for _, a in ipairs(h:info "alias") do add(a) end
      for _, a in ipairs(h:info "ipv4") do add(a) end
      for _, a in ipairs(h:info "ipv6") do add(a) end
      for _, t in ipairs(types) do
         for _, key in ipairs(h:info(info_key(t))) do
            lines[#lines + 1] = concat(names, ",") .. " " .. key
         end
      end
   end
   return concat(lines, "\n") .. (#lines > 0 and "\n" or "")
end

function impl.known_hosts.ensure(sys, a)
   local changed = false
   local dir = a.path:match("^(.*)/[^/]*$")
   local st = sys:stat(dir)
   if st == nil then
      sys:mkdir(dir, { mode = tonumber("0700", 8), owner = a.user, group = a.group })
      changed = true
   end
   if R.ensure_content(sys, "ssh.known_hosts", a.path, known_hosts_text(),
                       { mode = "0644", owner = a.user, group = a.group }) then
      changed = true
   end
   return changed and "changed" or "ok"
end

--[[ ssh.known_hosts(user [, { path=, group= }])
  UnixLike.  The known_hosts file of user lists every host of the site
  that declares its key (ssh.host_key, ssh.host_keys) under its name, its
  aliases, its addresses and its connect.ssh address ([name]:port when
  its port is not 22): the fleet trusts itself without trust-on-first-use.
  The file is written when the site changes; its directory is made 0700
  when missing.  path defaults to /root/.ssh/known_hosts for root and
  /home/USER/.ssh/known_hosts for another user; group defaults to user.
  Claims: file.generated path.
  Example:
    ssh.known_hosts "root"
]]
function ssh.known_hosts(user, opts)
   local desc = "ssh known hosts of " .. (type(user) == "string" and user or "?")
   local uerr = args.matching(user, "user", "[a-z_][a-z0-9_-]*%$?", 'a user name such as "root"')
   local oerr, o = args.options(opts, { path = args.abs_path,
      group = function(v, what) return args.matching(v, what, "[a-z_][a-z0-9_-]*", 'a group such as "adm"') end,
   }, "ssh.known_hosts")
   local msg = args.join("ssh.known_hosts", uerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local path = o.path or (user == "root" and "/root/.ssh/known_hosts"
                           or "/home/" .. user .. "/.ssh/known_hosts")
   return core.leaf{ desc = desc, impl = impl.known_hosts,
                     args = { user = user, group = o.group or user, path = path },
                     claims = { claim.file_generated(path, "ssh.known_hosts") },
                     norevert = "ssh.known_hosts has no revert action: the old file is not known" }
end

-- ---------------------------------------------------------------------
-- authorized_keys.

-- The key types an authorized_keys line may name, as the blob names them.
local key_types = {
   ["ssh-ed25519"] = true, ["ssh-rsa"] = true, ["ssh-dss"] = true,
   ["ecdsa-sha2-nistp256"] = true, ["ecdsa-sha2-nistp384"] = true,
   ["ecdsa-sha2-nistp521"] = true, ["sk-ssh-ed25519@openssh.com"] = true,
   ["sk-ecdsa-sha2-nistp256@openssh.com"] = true,
}
local key_type_list = {}
for t in pairs(key_types) do key_type_list[#key_type_list + 1] = t end
table.sort(key_type_list)

local b64 = {}
do
   local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
   for i = 1, #alphabet do b64[alphabet:byte(i)] = i - 1 end
end

-- The first n bytes of base64 text s (fewer when s is shorter).
local function b64_prefix(s, n)
   local out, bits, nbits = {}, 0, 0
   for i = 1, #s do
      local v = b64[s:byte(i)]
      if v == nil then break end
      bits, nbits = (bits << 6) | v, nbits + 6
      if nbits >= 8 then
         nbits = nbits - 8
         out[#out + 1] = string.char((bits >> nbits) & 0xff)
         if #out >= n then break end
      end
   end
   return concat(out)
end

-- A public key line: "TYPE BASE64 [comment]", where BASE64 is a key blob
-- that names TYPE itself (so that a truncated or mispasted key is caught
-- before it reaches a host).  Returned trimmed of surrounding blanks.
-- A secret given for a public key: refused with why (the key is checked,
-- claimed and compared line by line before anything runs, so it must be
-- in the site; and a public key is not secret).
local function secret_key(v, what)
   return fmt("%s is a secret (%s), but authorized_keys takes public key lines written in "
              .. 'the site as they are ("ssh-ed25519 AAAAC3Nza... alice@laptop"): a public key '
              .. "is not secret, and prop checks each one and claims its line before anything "
              .. "runs; secrets are for private keys (ssh.host_keys, file.has_content)",
              what, tostring(v))
end

local function check_key(v, what)
   if core.is_secret(v) then return secret_key(v, what) end
   if type(v) ~= "string" then
      return fmt('%s must be a public key line such as "ssh-ed25519 AAAAC3Nza... alice@laptop", '
                 .. "got %s", what, args.got(v))
   end
   if v:find("[\r\n]") then return fmt("%s contains a newline: give one key per entry", what) end
   local line = v:match("^%s*(.-)%s*$")
   local t, blob = line:match("^(%S+)%s+([A-Za-z0-9+/]+=*)%f[%s%z]")
   if t == nil then
      return fmt('%s %s is not a public key line ("TYPE BASE64 [comment]", such as '
                 .. '"ssh-ed25519 AAAAC3Nza... alice@laptop")', what, args.show(v))
   end
   if t:find("^AAAA") then
      return fmt('%s %s lacks the key type before its base64 blob (such as "ssh-ed25519 AAAA...")',
                 what, args.show(v))
   end
   if not key_types[t] then
      return fmt("%s: %s is not a key type (%s)%s", what, args.show(t), concat(key_type_list, ", "),
                 args.did_you_mean(t, key_type_list))
   end
   local head = b64_prefix(blob, 4 + #t)
   local len = #head >= 4 and string.unpack(">I4", head) or -1
   if len ~= #t or head:sub(5) ~= t then
      return fmt("%s: the base64 blob is not a key of type %s (mispasted or cut short?)", what, t)
   end
   return nil, line
end

local function check_user(v, what)
   return args.matching(v, what, "[a-z_][a-z0-9_-]*%$?", 'a user name such as "alice"')
end

-- The account's passwd entry, or nil (a dry run goes on: an earlier
-- property may be about to make it).
local function account(sys, what, name)
   local u = R.passwd(sys)[name]
   if u == nil and not sys.dry then
      R.fail("%s: user %s does not exist (declare it with user.account)", what, name)
   end
   return u
end

-- Refuses a symlink where prop writes as root into a user's home: the
-- user could point it at any file of the system.
local exact_keys

local function not_a_link(what, path, st)
   if st and st.type == "link" then
      R.fail("%s: %s is a symbolic link; prop does not follow links in a user's home", what, path)
   end
   if st and st.type == "other" then R.fail("%s: %s is not a regular file", what, path) end
end

-- How a key line is named in a note: its comment and its fingerprint as
-- ssh-keygen -l shows it (SHA256:base64 of the blob's SHA-256), never the
-- key itself.
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64_encode(bytes)
   local out = {}
   for i = 1, #bytes, 3 do
      local a, b, c = bytes:byte(i, i + 2)
      local n = (a << 16) | ((b or 0) << 8) | (c or 0)
      local k = b == nil and 2 or c == nil and 3 or 4
      for j = 1, k do
         local v = (n >> (18 - 6 * (j - 1))) & 63
         out[#out + 1] = B64:sub(v + 1, v + 1)
      end
   end
   return concat(out)
end

local function key_name(line)
   -- The type may follow options (from="...",no-pty): the first word
   -- that is a key type, then its blob, then the comment.
   local t, blob, comment
   local pos = 1
   while true do
      local s1, e1, w = line:find("(%S+)", pos)
      if s1 == nil then break end
      if key_types[w] then
         local b, rest = line:sub(e1 + 1):match("^%s+([A-Za-z0-9+/]+=*)%s*(.-)%s*$")
         t, blob, comment = w, b, rest
         break
      end
      pos = e1 + 1
   end
   local raw = blob and core.base64_decode(blob)
   if type(raw) ~= "string" then return "(a line that is not a key)" end
   local hex = core.sha256(raw)
   local digest = hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
   local fp = "SHA256:" .. b64_encode(digest)
   if comment ~= nil and comment ~= "" then return fmt("%s (%s %s)", comment, t, fp) end
   return fmt("%s %s", t, fp)
end

-- exact = true: the file holds exactly the keys the host's properties
-- list for the user (every ssh.authorized_keys of the user, from any
-- role: the file.line claims on the claimed path), in the order they
-- are in the file, the missing ones appended; comment and blank lines
-- stay; every other line goes, named by key_name in a note.  Whether it
-- changed the file.
exact_keys = function(sys, a, path, content, st, attrs)
   local want, order = {}, {}
   local function wanted(k)
      if not want[k] then want[k], order[#order + 1] = true, k end
   end
   for _, c in ipairs(sys:claims(a.claimed)) do
      if c.kind == "file.line" and c.key == a.claimed and type(c.value) == "string" then
         wanted(c.value)
      end
   end
   for _, k in ipairs(a.keys) do wanted(k) end
   local keep, have, gone = {}, {}, {}
   for _, l in ipairs((R.split_lines(content))) do
      if want[l] and not have[l] then
         keep[#keep + 1], have[l] = l, true
      elseif l:find("^%s*$") or l:find("^%s*#") then
         keep[#keep + 1] = l
      else
         gone[#gone + 1] = l
      end
   end
   local added = 0
   for _, k in ipairs(order) do
      if not have[k] then keep[#keep + 1], added = k, added + 1 end
   end
   if #gone == 0 and added == 0 then
      local fix = st and R.attrs_to_fix(st, attrs)
      if not fix then return false end
      fix.via = a.claimed
      sys:chattr(path, fix)
      return true
   end
   sys:write(path, concat(keep, "\n") .. "\n",
             { mode = tonumber("0600", 8), owner = attrs.owner, group = attrs.group,
               via = a.claimed })
   for _, l in ipairs(gone) do
      sys:note(fmt("%s key %s from %s", sys.dry and "would remove" or "removed", key_name(l), path))
   end
   if added > 0 then
      sys:note(fmt("%s %d key(s) to %s", sys.dry and "would add" or "added", added, path))
   end
   return true
end

function impl.authorized_keys.ensure(sys, a)
   local what = "ssh.authorized_keys"
   local u = account(sys, what, a.user)
   if u == nil then
      sys:note(fmt("would add %d key(s) for %s (user %s does not exist yet)", #a.keys, a.user,
                   a.user))
      return "changed"
   end
   local home = u.home ~= "" and u.home or "/"
   local dir = (home:gsub("/+$", "")) .. "/.ssh"
   local path = dir .. "/authorized_keys"
   local owner = { owner = a.user, group = tostring(u.gid) }
   local changed = false
   local dst = sys:stat(dir)
   not_a_link(what, dir, dst)
   if dst and dst.type ~= "directory" then R.fail("%s: %s is not a directory", what, dir) end
   if dst == nil then
      if not sys:exists(home) and not sys.dry then
         R.fail("%s: the home directory %s of %s does not exist", what, home, a.user)
      end
      sys:mkdir(dir, { mode = tonumber("0700", 8), owner = a.user, group = owner.group,
                       via = a.claimed_dir })
      changed = true
   else
      local fix = R.attrs_to_fix(dst, { mode = "0700", owner = a.user, group = owner.group })
      if fix then
         fix.via = a.claimed_dir
         sys:chattr(dir, fix)
         changed = true
      end
   end
   local st = sys:stat(path)
   not_a_link(what, path, st)
   if st and st.type ~= "file" then R.fail("%s: %s is not a file", what, path) end
   local content = st and sys:read(path) or nil
   if a.exact then
      return exact_keys(sys, a, path, content, st, { mode = "0600", owner = a.user,
                                                     group = owner.group }) or changed
         and "changed" or "ok"
   end
   local have = {}
   for _, l in ipairs((R.split_lines(content))) do have[l] = true end
   local add = {}
   for _, k in ipairs(a.keys) do
      if not have[k] then add[#add + 1], have[k] = k, true end
   end
   local attrs = { mode = "0600", owner = a.user, group = owner.group }
   if #add > 0 then
      local new = content or ""
      if new ~= "" and new:sub(-1) ~= "\n" then new = new .. "\n" end
      new = new .. concat(add, "\n") .. "\n"
      sys:write(path, new, { mode = tonumber("0600", 8), owner = a.user, group = owner.group,
                             via = a.claimed })
      sys:note(fmt("%s %d key(s) to %s", sys.dry and "would add" or "added", #add, path))
      return "changed"
   end
   local fix = st and R.attrs_to_fix(st, attrs)
   if fix then
      fix.via = a.claimed
      sys:chattr(path, fix)
      changed = true
   end
   return changed and "changed" or "ok"
end

function impl.authorized_keys_absent.ensure(sys, a)
   local what = "revert ssh.authorized_keys"
   local u = R.passwd(sys)[a.user]
   if u == nil then return "ok" end
   local home = u.home ~= "" and u.home or "/"
   local dir = (home:gsub("/+$", "")) .. "/.ssh"
   local path = dir .. "/authorized_keys"
   not_a_link(what, dir, sys:stat(dir))
   local st = sys:stat(path)
   not_a_link(what, path, st)
   if st == nil then return "ok" end
   local drop = {}
   for _, k in ipairs(a.keys) do drop[k] = true end
   local lines, nl = R.split_lines(sys:read(path) or "")
   local keep, removed = {}, 0
   for _, l in ipairs(lines) do
      if drop[l] then removed = removed + 1 else keep[#keep + 1] = l end
   end
   if removed == 0 then return "ok" end
   local new = concat(keep, "\n")
   if #keep > 0 and nl then new = new .. "\n" end
   sys:write(path, new, { via = a.claimed })
   sys:note(fmt("%s %d key line(s) from %s", sys.dry and "would remove" or "removed", removed,
                path))
   return "changed"
end

local function default_home(user)
   return user == "root" and "/root" or "/home/" .. user
end

-- ---------------------------------------------------------------------
-- A user's key pair.

-- The account's passwd entry and its ~/.ssh, made 0700 and owned by the
-- account when missing or loose; a symbolic link there is refused.  nil
-- in a dry run when the account does not exist yet.
local function user_ssh_dir(sys, what, name, claimed_dir)
   local u = R.passwd(sys)[name]
   if u == nil then
      if not sys.dry then
         R.fail("%s: user %s does not exist (declare it with user.account)", what, name)
      end
      return nil
   end
   local home = u.home ~= "" and u.home or "/"
   local dir = (home:gsub("/+$", "")) .. "/.ssh"
   local group = tostring(u.gid)
   local st = sys:stat(dir)
   if st and st.type == "link" then
      R.fail("%s: %s is a symbolic link; prop does not follow links in a user's home", what, dir)
   end
   if st and st.type ~= "directory" then R.fail("%s: %s is not a directory", what, dir) end
   local changed = false
   if st == nil then
      if not sys:exists(home) and not sys.dry then
         R.fail("%s: the home directory %s of %s does not exist", what, home, name)
      end
      sys:mkdir(dir, { mode = tonumber("0700", 8), owner = name, group = group, via = claimed_dir })
      changed = true
   else
      local fix = R.attrs_to_fix(st, { mode = "0700", owner = name, group = group })
      if fix then
         fix.via = claimed_dir
         sys:chattr(dir, fix)
         changed = true
      end
   end
   return dir, group, changed
end

function impl.user_keypair.ensure(sys, a)
   local what = "ssh.user_keypair"
   local dir, group, changed = user_ssh_dir(sys, what, a.user, a.claimed_dir)
   if dir == nil then
      sys:note(fmt("would write the %s key pair of %s (user %s does not exist yet)", a.type,
                   a.user, a.user))
      return "changed"
   end
   local base = dir .. "/id_" .. a.type
   for _, p in ipairs({ base, base .. ".pub" }) do
      local st = sys:stat(p)
      if st and st.type == "link" then
         R.fail("%s: %s is a symbolic link; prop does not follow links in a user's home", what, p)
      end
   end
   if R.ensure_content(sys, what, base, a.private,
                       { mode = "0600", owner = a.user, group = group, secret = true }) then
      sys:note((sys.dry and "would write " or "wrote ") .. base)
      changed = true
   end
   if R.ensure_content(sys, what, base .. ".pub", a.public .. "\n",
                       { mode = "0644", owner = a.user, group = group }) then
      sys:note((sys.dry and "would write " or "wrote ") .. base .. ".pub")
      changed = true
   end
   return changed and "changed" or "ok"
end

-- The probe: ssh-keygen -y on the target derives the public key from the
-- private file (which it reads itself: the key is on no command line);
-- its type and base64 blob must be the declared public key's.
function impl.user_keypair.verify(sys, a)
   local u = R.passwd(sys)[a.user]
   if u == nil then return false, "user " .. a.user .. " does not exist" end
   local home = u.home ~= "" and u.home or "/"
   local path = (home:gsub("/+$", "")) .. "/.ssh/id_" .. a.type
   local r = sys:query({ "ssh-keygen", "-y", "-f", path })
   if r.code == 127 then
      return false, "ssh-keygen is not on the target (install openssh-client) to check " .. path
   end
   if r.code ~= 0 then
      return false, fmt("ssh-keygen -y -f %s fails: %s", path,
                        R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 2))
   end
   local derived = (r.stdout or ""):match("^%s*(%S+%s+%S+)")
   if derived ~= a.public:match("^(%S+%s+%S+)") then
      return false, fmt("the private key in %s is not the one of the public key given (ssh-keygen "
                        .. "-y derives %s)", path, derived or "nothing")
   end
   return true
end

--[[ ssh.user_keypair(user, type, { private = secret "...", public = "..." })
  UnixLike, not revertable.
  The key pair of an account: ~USER/.ssh/id_TYPE holds the private key
  (the secret, 0600) and id_TYPE.pub the public one (0644), both owned by
  the account and its primary group; ~/.ssh is made 0700 when missing.
  type: ed25519, rsa, ecdsa or dsa.  private: a secret (plain text is
  refused), such as the file ssh-keygen wrote, stored with
  prop secret set SITE NAME < id_ed25519; it reaches the target as the
  content of the file, never on a command line.  public: its public key
  line, checked against type.
  Claims: both files (file.generated), ~/.ssh 0700 owned by the user
  (the claims name /home/USER, or /root for root).
  Run time: the home directory is the account's, from /etc/passwd (the
  account must exist); a file whose content, mode or owner differs is
  rewritten; a symbolic link at ~/.ssh or at either file is a failure.
  Nothing differs: ok.
  Verify: ssh-keygen -y -f ~/.ssh/id_TYPE on the target derives the
  public key from the private file: it must be the public key given (a
  private key that is not public's fails, as does a target without
  ssh-keygen).
  Example:
    ssh.user_keypair("deploy", "ed25519",
                     { private = secret "deploy_id_ed25519", public = "ssh-ed25519 AAAAC3Nza..." })
]]
function ssh.user_keypair(user, t, opts)
   local desc = fmt("ssh key pair %s of %s", type(t) == "string" and t or "?",
                    type(user) == "string" and user or "?")
   local uerr = check_user(user, "user")
   local terr, tt = check_type(t, "type")
   local oerr, o
   if type(opts) ~= "table" then
      oerr = fmt('give the key pair as { private = secret "NAME", public = "ssh-... AAAA..." }, '
                 .. "got %s", args.got(opts))
   else
      oerr, o = args.options(opts, {
         private = function(v, what)
            if core.is_secret(v) then return nil, v end
            return fmt('%s must be a secret (secret "name" from the site\'s store), got %s: a '
                       .. "private key is never written in the site", what, args.got(v))
         end,
         public = function(v, what)
            if terr then return nil, v end
            return check_public(tt, v, what)
         end,
      }, "ssh.user_keypair")
      if not oerr and o.private == nil then oerr = 'private= is required (secret "NAME")' end
      if not oerr and o.public == nil then oerr = 'public= is required ("ssh-... AAAA...")' end
   end
   local msg = args.join("ssh.user_keypair", uerr, terr, oerr)
   if msg then return core.invalid(desc, msg) end
   local dir = default_home(user) .. "/.ssh"
   local path = dir .. "/id_" .. tt
   local claims = {
      claim.file_generated(path, "the private key of " .. user),
      claim.file_generated(path .. ".pub", "the public key of " .. user),
      claim.file_mode(dir, "0700"), claim.file_owner(dir, user .. ":"),
   }
   return core.leaf{ desc = desc, impl = impl.user_keypair, targets = "UnixLike",
                     args = { user = user, type = tt, private = o.private, public = o.public,
                              claimed_dir = dir },
                     claims = claims,
                     norevert = "ssh.user_keypair has no revert action: the key pair it replaces "
                                .. "is not known" }
end

--[[ ssh.authorized_keys(user, keys [, { exact= }])
  UnixLike, revertable: its revert removes exactly these key lines.
  keys: a list of public key lines ("TYPE BASE64 [comment]"), or one;
  each is checked before anything runs: a known key type (ssh-ed25519,
  ssh-rsa, ecdsa-sha2-nistp256, ...) and a base64 blob that is a key of
  that type.  Options before the type (from=, command=) are not taken.
  A secret is refused: a public key is not secret, and each is checked
  and claimed before anything runs.
  Claims: file.line ~USER/.ssh/authorized_keys = each key, the file's
  mode 0600 and the directory's 0700, both owned by the user (the claims
  name /home/USER, or /root for root).
  Run time: the home directory is the account's, from /etc/passwd on the
  target (the account must exist); ~/.ssh is made 0700 when missing and
  the missing keys are appended to authorized_keys (made 0600 when
  missing), both owned by the user and its primary group; other lines are
  kept.  A symbolic link at ~/.ssh or at the file is a failure: prop
  writes there as root and does not follow a user's links.  Reverted:
  the lines equal to these keys are removed, the rest kept.
  exact = true: the file holds exactly the keys the host's properties
  list for the user: these and those of every other ssh.authorized_keys
  of the user on the host, from any role (their file.line claims, seen
  with sys:claims); every other key line is removed and named in a note
  by its comment and fingerprint, never the key; comment and blank lines
  stay.
  Example:
    ssh.authorized_keys("alice", { "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... alice@laptop" })
]]
function ssh.authorized_keys(user, keys, opts)
   local desc = "ssh authorized keys of " .. (type(user) == "string" and user or "?")
   local err, v = args.check_all(check_user, user, "user", function(x, what)
      if core.is_secret(x) then return secret_key(x, what) end
      return args.list(x, what, check_key, { nonempty = true })
   end, keys, "keys")
   local oerr, o = args.options(opts, { exact = args.boolean }, "ssh.authorized_keys")
   local msg = args.join("ssh.authorized_keys", err, oerr)
   if msg then return core.invalid(desc, msg) end
   local dir = default_home(user) .. "/.ssh"
   local path = dir .. "/authorized_keys"
   local a = { user = user, keys = v[2], claimed = path, claimed_dir = dir, exact = o.exact }
   local function claims(kind)
      local c = {}
      for _, k in ipairs(a.keys) do c[#c + 1] = claim[kind](path, k) end
      if kind == "file_line" then
         for _, x in ipairs({ claim.file_mode(path, "0600"), claim.file_owner(path, user .. ":"),
                              claim.file_mode(dir, "0700"), claim.file_owner(dir, user .. ":") }) do
            c[#c + 1] = x
         end
      end
      return c
   end
   local n = #a.keys
   local up = core.leaf{ desc = fmt("%s (%d key%s%s)", desc, n, n == 1 and "" or "s",
                                    o.exact and ", no others" or ""),
                         impl = impl.authorized_keys, args = a, claims = claims("file_line") }
   local down = core.leaf{ desc = fmt("%s lacks %d key%s", desc, n, n == 1 and "" or "s"),
                           impl = impl.authorized_keys_absent, args = a,
                           claims = claims("file_noline") }
   return core.pair(up, down)
end

-- ---------------------------------------------------------------------
-- sshd_config.

local SSHD_CONFIG = "/etc/ssh/sshd_config"
local SSHD_CHECK = SSHD_CONFIG .. ".prop-check"
local PRIVSEP = "/run/sshd"

-- The keyword of an sshd_config line, lower-cased, and whether the line
-- is commented out ("#Port 22", "# Port 22"); nil for other lines.
local function line_keyword(l)
   local hash, word = l:match("^%s*(#?)%s*([A-Za-z][A-Za-z0-9]*)%f[%s=]")
   if word == nil then return nil end
   return word:lower(), hash == "#"
end

-- content with each setting of a (list of { name, value }) on one
-- "Name value" line before the first Match block: the first active line
-- of that keyword is replaced and its other active lines there dropped;
-- without one, its first commented-out line is replaced; else the line
-- goes before the first Match (or at the end).  Match blocks are left as
-- they are.
local function edit_sshd_config(content, settings)
   local lines, nl = R.split_lines(content)
   local want = {}
   for _, st in ipairs(settings) do want[st.name:lower()] = st end
   local match_at
   for i, l in ipairs(lines) do
      local k, commented = line_keyword(l)
      if k == "match" and not commented then match_at = i break end
   end
   local stop = (match_at or #lines + 1) - 1
   local active, comment = {}, {}
   for i = 1, stop do
      local k, commented = line_keyword(lines[i])
      if k and want[k] then
         if commented then
            comment[k] = comment[k] or i
         else
            active[k] = active[k] or {}
            table.insert(active[k], i)
         end
      end
   end
   local put, drop, before = {}, {}, {}
   for _, st in ipairs(settings) do
      local k, line = st.name:lower(), st.name .. " " .. st.value
      if active[k] then
         put[active[k][1]] = line
         for j = 2, #active[k] do drop[active[k][j]] = true end
      elseif comment[k] then
         put[comment[k]] = line
      else
         before[#before + 1] = line
      end
   end
   local out = {}
   for i, l in ipairs(lines) do
      if match_at == i then
         for _, b in ipairs(before) do out[#out + 1] = b end
         before = {}
      end
      if not drop[i] then out[#out + 1] = put[i] or l end
   end
   for _, b in ipairs(before) do out[#out + 1] = b end
   local new = concat(out, "\n")
   if #out > 0 and (nl or #lines == 0 or #before > 0) then new = new .. "\n" end
   return new
end

-- The service that runs sshd: "ssh" on Debian and Ubuntu, "sshd" on
-- FreeBSD.
local function sshd_service(sys)
   return R.is_freebsd(sys) and "sshd" or "ssh"
end

function impl.sshd_config.ensure(sys, a)
   local what = "ssh.sshd_config"
   local path = SSHD_CONFIG
   local st = sys:stat(path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file", what, path, st.type == "other" and "special file" or st.type)
   end
   local content = st and sys:read(path)
   if content == nil then
      if not sys.dry then
         R.fail("%s: %s does not exist (install openssh-server first)", what, path)
      end
      sys:note("would edit " .. path .. " (it does not exist yet)")
      return "changed"
   end
   local new = edit_sshd_config(content, a.settings)
   if new == content then return "ok" end
   if sys.dry then
      sys:write(path, new)
      sys:note("would check the new file with sshd -t before it replaces the old one")
      return "changed"
   end
   -- The new file is checked before it replaces the old one: a
   -- configuration sshd refuses never replaces one it accepts.
   sys:write(SSHD_CHECK, new, { mode = st.mode & tonumber("0777", 8) })
   local check = { "/usr/sbin/sshd", "-t", "-f", SSHD_CHECK }
   local r = sys:query(check)
   -- sshd -t checks its privilege separation directory last, once the
   -- configuration has been read; Debian's ssh service makes /run/sshd
   -- when it starts, so on a system where it never ran (a new tree) the
   -- directory is made as the service would, and the check run again.
   if r.code ~= 0 and ((r.stderr or "") .. (r.stdout or "")):find(
         "Missing privilege separation directory: " .. PRIVSEP, 1, true)
      and not sys:exists(PRIVSEP) then
      sys:mkdir(PRIVSEP, { mode = tonumber("0755", 8) })
      r = sys:query(check)
   end
   sys:remove(SSHD_CHECK)
   if r.code ~= 0 then
      local said = R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 4)
      said = said:gsub(SSHD_CHECK:gsub("%p", "%%%0"), path)
      R.fail("%s: sshd -t refuses the new configuration, %s is left as it was: %s", what, path,
             said)
   end
   sys:write(path, new)
   return "changed"
end

-- The values sshd -T prints for keyword (lower-cased, as sshd -T prints
-- it), sorted, with more arguments for sshd; nil and sshd's words when
-- it fails.
local function sshd_T(sys, keyword, more)
   local argv = { "/usr/sbin/sshd", "-T" }
   for _, x in ipairs(more or {}) do argv[#argv + 1] = x end
   local r = sys:query(argv)
   if r.code ~= 0 then
      return nil, R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 2)
   end
   local vals, seen = {}, {}
   for l in r.stdout:gmatch("[^\n]+") do
      local k, v = l:match("^(%S+)%s*(.-)%s*$")
      if k == keyword and not seen[v] then vals[#vals + 1], seen[v] = v, true end
   end
   table.sort(vals)
   return vals
end

-- Whether something listens on TCP port (of /proc/net/tcp and tcp6,
-- state 0A), or nil when neither can be read.
local function listening(sys, port)
   local any = false
   for _, f in ipairs { "/proc/net/tcp", "/proc/net/tcp6" } do
      local text = sys:read(f)
      if text then
         any = true
         for lport, state in text:gmatch("\n%s*%d+:%s+%x+:(%x+)%s+%x+:%x+%s+(%x+)") do
            if state == "0A" and tonumber(lport, 16) == port then return true end
         end
      end
   end
   if any then return false end
   return nil
end

-- The probe: the values sshd reads, as sshd -T prints them, against
-- what it prints when also given the declared value (-o KEY=VALUE, read
-- before the files): sshd's own spelling on both sides ("2m" is 120,
-- prohibit-password is without-password).  The same means the value is
-- in force: a single value was already it, a list (Port, ListenAddress)
-- already had it.  A setting sshd -T does not print is checked by the
-- file only.  sshd takes the first value it reads, so a file an Include
-- before the line reads (sshd_config.d) or an earlier line wins: that is
-- what this sees.
function impl.sshd_config.verify(sys, a, changed)
   for _, st in ipairs(a.settings) do
      local k = st.name:lower()
      local have, err = sshd_T(sys, k)
      if have == nil then
         -- Where sshd never ran (/run/sshd missing) there is nothing more
         -- to see than the file, which sshd -t accepted.
         if err:find("privilege separation directory", 1, true) then return true end
         return false, "sshd -T fails: " .. err
      end
      local want = sshd_T(sys, k, { "-o", st.name .. "=" .. st.value })
      if #have > 0 and want and #want > 0 and concat(have, "\n") ~= concat(want, "\n") then
         local had, missing = {}, {}
         for _, v in ipairs(have) do had[v] = true end
         for _, v in ipairs(want) do if not had[v] then missing[#missing + 1] = v end end
         return false, fmt("sshd -T says %s %s, want %s %s (an earlier line, or a file read "
                           .. "before it, sets it first)", k, concat(have, ", "), k,
                           concat(#missing > 0 and missing or want, ", "))
      end
      -- The port of the sshd that runs: one started before the file
      -- changed, and not reloaded, listens where it did.  A file that
      -- has just changed is its reload's business (on_change, after).
      local port = not changed and k == "port" and math.tointeger(tonumber(st.value))
      if port and not R.no_daemons(sys) and R.service_is_running(sys, sshd_service(sys))
         and listening(sys, port) == false then
         return false, fmt("sshd runs but nothing listens on port %d (/proc/net/tcp): it has "
                           .. "not read the file since it changed", port)
      end
   end
   return true
end

-- The repair: sshd told to read its file again, when it runs.
function impl.sshd_config.repair(sys)
   local svc = sshd_service(sys)
   if not R.no_daemons(sys) and R.service_is_running(sys, svc) then
      R.service_do(sys, svc, "reload")
   end
end
-- sshd -T reads the files at once; a reloaded sshd listens soon.
impl.sshd_config.probe_timeout = 2

-- Setting names: sshd_config keywords (letters and digits).  Match and
-- Include are not settings: a Match block is a section, Include takes
-- several files.
local function check_setting_name(k)
   if type(k) ~= "string" or not k:find("^[A-Za-z][A-Za-z0-9]*$") then
      return fmt("setting names must be sshd_config keywords such as PasswordAuthentication, got %s",
                 args.got(k))
   end
   local l = k:lower()
   if l == "match" or l == "include" then
      return fmt("%s is not a setting ssh.sshd_config edits (Match blocks and Include lines are "
                 .. "left as they are)", k)
   end
   return nil
end

local function check_setting_value(k, v)
   if v == true then return nil, "yes" end
   if v == false then return nil, "no" end
   if math.type(v) == "integer" then return nil, tostring(v) end
   if type(v) ~= "string" then
      return fmt("%s must be a string, an integer or a boolean, got %s", k, args.got(v))
   end
   local t = v:match("^%s*(.-)%s*$")
   if t == "" then return fmt("%s must not be empty", k) end
   if t:find("[\r\n]") then return fmt("%s %s contains a newline", k, args.show(v)) end
   if t:find("#") then return fmt("%s %s contains \"#\", which starts a comment in sshd_config", k, args.show(v)) end
   return nil, t
end

-- One leaf per setting: its description, claims and port depend on the
-- setting alone, so that ssh.listen_port(2222) and ssh.sshd_config
-- { Port = 2222, ... } hold the same leaf, and never conflict.
local function setting_leaf(name, value)
   local claims = { claim.file_setting(SSHD_CONFIG, name .. "=" .. value),
                    claim.file_generated(SSHD_CHECK, "a copy checked before it replaces the file"),
                    claim.file_directory(PRIVSEP) }
   local p = name:lower() == "port" and math.tointeger(tonumber(value)) or nil
   return core.leaf{ desc = "sshd_config: " .. name .. " " .. value, targets = "UnixLike",
                     impl = impl.sshd_config,
                     args = { settings = { { name = name, value = value } } }, claims = claims,
                     ports = p and { p } or nil,
                     norevert = "ssh.sshd_config has no revert action: the old values are not known" }
end

function impl.sshd_reload.ensure(sys)
   local svc = sshd_service(sys)
   if R.in_chroot(sys) then
      sys:note(fmt("%s not reloaded: no daemon runs in a chroot", svc))
      return "ok"
   end
   if not R.service_is_running(sys, svc) then
      sys:note(fmt("%s is not running: nothing to reload", svc))
      return "ok"
   end
   R.service_do(sys, svc, "reload")
   return "changed"
end

local function reload_leaf()
   return core.leaf{ desc = "sshd reloaded", targets = "UnixLike", impl = impl.sshd_reload,
                     norevert = "a reload has nothing to revert" }
end

-- The settings of a table, checked: the property, or core.invalid.
local function sshd_settings(recipe, settings)
   if type(settings) ~= "table" or next(settings) == nil or settings[1] ~= nil then
      return core.invalid("sshd_config", recipe .. ": give the settings as a table such as "
                          .. '{ PasswordAuthentication = "no", Port = 2222 }, got ' .. args.got(settings))
   end
   local names, seen = {}, {}
   for k in pairs(settings) do
      local err = check_setting_name(k)
      if err then return core.invalid("sshd_config", recipe .. ": " .. err) end
      if seen[k:lower()] then
         local a, b = seen[k:lower()], k
         if b < a then a, b = b, a end
         return core.invalid("sshd_config", fmt("%s: %s and %s are one setting (sshd_config keywords "
                                                .. "ignore case)", recipe, a, b))
      end
      seen[k:lower()] = k
      names[#names + 1] = k
   end
   table.sort(names, function(x, y) return x:lower() < y:lower() end)
   local parts, shown = {}, {}
   for _, k in ipairs(names) do
      local err, v = check_setting_value(k, settings[k])
      if err then return core.invalid("sshd_config", recipe .. ": " .. err) end
      if k:lower() == "port" then
         local perr = args.port(math.tointeger(tonumber(v)) or v, "Port")
         if perr then return core.invalid("sshd_config", recipe .. ": " .. perr) end
      end
      parts[#parts + 1] = setting_leaf(k, v)
      shown[#shown + 1] = k .. " " .. v
   end
   return core.props(parts):on_change(reload_leaf()):describe("sshd_config: " .. concat(shown, ", "))
end

--[[ ssh.sshd_config(settings)
  UnixLike, not revertable.
  settings: a table of sshd_config keywords and values, such as
  { PasswordAuthentication = "no", Port = 2222 } (true and false are
  "yes" and "no").  Each becomes one "Keyword value" line of
  /etc/ssh/sshd_config, before any Match block: its first line there
  (or, without one, its first commented-out line) is replaced, its other
  lines there dropped, and a new one goes before the first Match block.
  Match blocks, Include lines and every other line are kept.
  Claims: each setting with its value (the same setting with another
  value elsewhere on the host, or a line of the file giving it another
  one, is P007); Port declares that port (P006).
  Run time: the new file is written beside the old one
  (sshd_config.prop-check), checked with sshd -t -f, and only then put in
  place: a configuration sshd refuses fails the property with sshd's
  message and the old file stays.  The ssh service is reloaded when it
  runs (in a chroot: a note).  Nothing differs: ok.  Note that sshd takes
  the first value it reads: a setting in a file that an Include line
  before it reads wins.
  Verify: sshd -T prints the value (compared with what sshd -T -o
  KEY=VALUE prints, sshd's own spelling); a setting sshd -T does not
  print is checked by the file only.  A value another file sets first
  fails, with what sshd -T said.  A Port: when the ssh service runs,
  something listens on it (/proc/net/tcp, tcp6); repair: reload sshd.
  Example:
    ssh.sshd_config { PasswordAuthentication = "no", PermitRootLogin = "prohibit-password" }
]]
function ssh.sshd_config(settings, ...)
   if select("#", ...) > 0 then
      return core.invalid("sshd_config", "ssh.sshd_config takes one table of settings")
   end
   return sshd_settings("ssh.sshd_config", settings)
end

--[[ ssh.password_authentication(allowed)
  UnixLike: ssh.sshd_config { PasswordAuthentication = "yes" or "no" }.
  Example:
    ssh.password_authentication(false)
]]
function ssh.password_authentication(allowed, ...)
   local err = args.boolean(allowed, "allowed")
   if err or select("#", ...) > 0 then
      return core.invalid("sshd_config", "ssh.password_authentication: "
                          .. (err or "takes one boolean"))
   end
   return sshd_settings("ssh.password_authentication", { PasswordAuthentication = allowed })
end

--[[ ssh.listen_port(port)
  UnixLike: ssh.sshd_config { Port = port }; declares the port, so that
  another property using it on the host is P006.
  Example:
    ssh.listen_port(2222)
]]
function ssh.listen_port(port, ...)
   local err, p = args.port(port, "port")
   if err or select("#", ...) > 0 then
      return core.invalid("sshd_config", "ssh.listen_port: " .. (err or "takes one port"))
   end
   return sshd_settings("ssh.listen_port", { Port = p })
end

return args.strict_module(ssh, "ssh")
