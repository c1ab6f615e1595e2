-- prop.chroot: a Debian or Ubuntu tree on a host, provisioned as a host
-- of its own (Propellor's Chroot).
--
-- A chroot shares its host's kernel, network and processes: prop never
-- starts a daemon in one (see prop.container), and service.running inside
-- it is ok with a note.  Its properties run through a shell inside it,
-- started on the parent (a mount namespace of its own gives it /proc,
-- /sys and /dev, gone when the shell ends).

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local C = require "prop.container"

local chroot = {}

local fmt = string.format

local impl = { provisioned = {}, removed = {} }

local function tree_of(a)
   return a.path
end

function impl.provisioned.ensure(sys, a)
   local what = "chroot " .. a.path
   local changed = C.ensure_tree(sys, what, tree_of(a), C.tree_spec(a.container))
   return changed and "changed" or "ok"
end

function impl.removed.ensure(sys, a)
   return C.remove_tree(sys, "chroot " .. a.path, a.path) and "changed" or "ok"
end

local debian_like = { debian = true, buntish = true }

local function make(recipe, path, os_, props, extra_info, name)
   local desc = "chroot " .. (type(path) == "string" and path or "?")
   local perr, p = C.check_path(path, "path")
   local oerr, o = C.check_os(os_, "os", debian_like)
   local lerr = C.check_props(props, "properties")
   local msg = args.join(recipe, perr, oerr, lerr)
   if msg then return core.invalid(desc, msg) end
   local info = { "path", p, "family", o.family, "suite", o.suite, "arch", o.arch }
   for i = 1, #extra_info do info[#info + 1] = extra_info[i] end
   local list = { os_, C.info("chroot " .. p, info), C.expand_roles(name or p, props, { os_ }) }
   return core.container("chroot", name or p:match("[^/]+$"), list)
end

local tree_opts = {
   variant = function(v, what)
      return args.matching(v, what, "[%w-]+", 'a debootstrap variant such as "minbase"')
   end,
   mirror = function(v, what)
      return args.matching(v, what, "https?://[%w%-%.:%[%]_~/%%@]+", 'a URL such as "http://deb.debian.org/debian"')
   end,
   include = function(v, what)
      local err, list = args.list(v, what, function(x, w)
         return args.matching(x, w, "[a-z0-9][a-z0-9+.-]*", "a package name")
      end, { nonempty = true })
      if err then return err end
      return nil, table.concat(list, ",")
   end,
   cache = args.abs_path,
   name = C.check_name,
}

--[[ chroot.debootstrapped(path, os, props [, { variant=, mirror=, include=, cache=, name= }])
  A container: a Debian or Ubuntu tree at path (absolute, not /) of the
  OS given (os.debian(...) or os.buntish(...)), whose properties are
  props, checked against that OS.  It is made on its host by
  chroot.provisioned, with debootstrap (variant minbase unless told,
  include = extra packages) the first time, then from a tarball of that
  first tree kept in cache (/var/cache/prop/rootfs): a second tree of the
  same OS unpacks in seconds.  Its name ("box/NAME" for prop run) is the
  last part of path unless name is given.
  Example:
    local dev = chroot.debootstrapped("/srv/chroot/dev", os.debian("bookworm", "amd64"),
                                      { apt.installed { "build-essential" } })
]]
function chroot.debootstrapped(path, os_, props, opts)
   local err, o = args.options(opts, tree_opts, "chroot.debootstrapped")
   if err then return core.invalid("chroot " .. tostring(path), err) end
   local extra = {}
   for _, k in ipairs { "variant", "mirror", "include", "cache" } do
      if o[k] then extra[#extra + 1], extra[#extra + 2] = k, o[k] end
   end
   return make("chroot.debootstrapped", path, os_, props, extra, o.name)
end

--[[ chroot.from_tarball(path, os, tarball, props [, { name= }])
  As chroot.debootstrapped, the tree unpacked from tarball (a .tar.gz on
  the host, made with tar --numeric-owner --xattrs) instead.
  Example:
    chroot.from_tarball("/srv/chroot/ci", os.debian("bookworm", "amd64"),
                        "/srv/images/bookworm.tar.gz", { file.has_content("/etc/motd", "ci\n") })
]]
function chroot.from_tarball(path, os_, tarball, props, opts)
   local terr = args.abs_path(tarball, "tarball")
   local err, o = args.options(opts, { name = C.check_name }, "chroot.from_tarball")
   if terr or err then
      return core.invalid("chroot " .. tostring(path), args.join("chroot.from_tarball", terr, err))
   end
   return make("chroot.from_tarball", path, os_, props, { "tarball", tarball }, o.name)
end

local function container_of(v, recipe)
   if not (type(v) == "userdata" and pcall(function() return v.container end)
           and v.container == "chroot") then
      return nil, fmt("%s needs a chroot made by chroot.debootstrapped or chroot.from_tarball, got %s",
                      recipe, args.got(v))
   end
   return v
end

--[[ chroot.provisioned(c)
  DebianLike, revertable: its revert removes the tree (what a run mounted
  below it is unmounted first; nothing outside it is followed).
  Claims: the tree's path, owned whole (and PATH.prop-new, where it is
  made).  Run time: makes the tree when it is not there (see
  chroot.debootstrapped); then prop run provisions it: every property of
  c runs inside it, after the host's own, and a second run changes
  nothing.  A half-made tree is never used: it is made again.
  Example:
    host "box" { os.debian("bookworm", "amd64"), chroot.provisioned(dev) }
]]
function chroot.provisioned(c)
   -- A chroot that could not be made was reported where it was made: one
   -- mistake, one finding.
   if core.is_property(c) and c.kind == "invalid" then return c end
   local h, err = container_of(c, "chroot.provisioned")
   if not h then return core.invalid("chroot provisioned", err) end
   local path = C.get(h, "path")
   -- The value names the container: two containers in one tree are P007.
   local owner = "chroot " .. h.short_name
   local claims = { claim.file_owned(path, owner), claim.file_owned(path .. ".prop-new", owner) }
   local a = { path = path, container = h }
   -- Named by its path; by its name too when that is not the path's end.
   local what = "chroot " .. path
   if path:match("[^/]+$") ~= h.short_name then what = "chroot " .. h.short_name .. " (" .. path .. ")" end
   local up = core.leaf{ desc = what .. " provisioned", targets = "DebianLike",
                         impl = impl.provisioned, args = a, claims = claims, container = h }
   local down = core.leaf{ desc = what .. " removed", targets = "DebianLike", impl = impl.removed,
                           args = a, claims = claims, container = h, detaches = true }
   return core.pair(up, down)
end

return args.strict_module(chroot, "chroot")
