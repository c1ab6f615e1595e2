-- prop.zfs: ZFS datasets.
--
-- A dataset is made with zfs create -o PROPERTY=VALUE and kept with
-- zfs set; its properties are read with zfs get -H -p.  Destroying one
-- loses its data: a revert does it only when the site says so.

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"

local zfs = {}

local fmt, concat = string.format, table.concat

local impl = { dataset = {}, destroyed = {} }

-- Whether the dataset exists: zfs list -H -o name NAME; a target without
-- zfs fails (a dry run says what it would run).
local function exists(sys, what, name)
   local found = false
   for _, p in ipairs({ "/sbin/zfs", "/usr/sbin/zfs", "/usr/local/sbin/zfs" }) do
      if sys:exists(p) then found = true break end
   end
   if not found then
      if not sys.dry then R.fail("%s: zfs is not installed on the target (zfsutils-linux)", what) end
      sys:note("zfs is not on the target: the run fails unless it is installed before it")
      return false
   end
   return sys:query({ "zfs", "list", "-H", "-o", "name", name }).code == 0
end

-- The values of props (a list of names) on the dataset: name -> value,
-- as zfs get -H -p prints them (exact numbers).
local function values(sys, what, name, props)
   local argv = { "zfs", "get", "-H", "-p", "-o", "property,value,source", concat(props, ","), name }
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   local out = {}
   for l in (r.stdout or ""):gmatch("[^\n]+") do
      local p, v = l:match("^([^\t]+)\t([^\t]*)\t")
      if p then out[p] = v end
   end
   return out
end

function impl.dataset.ensure(sys, a)
   local what = "zfs.dataset " .. a.name
   if not exists(sys, what, a.name) then
      local argv = { "zfs", "create" }
      if a.parents then argv[#argv + 1] = "-p" end
      for _, kv in ipairs(a.props) do
         argv[#argv + 1] = "-o"
         argv[#argv + 1] = kv[1] .. "=" .. kv[2]
      end
      argv[#argv + 1] = a.name
      R.run(sys, what, argv)
      sys:note((sys.dry and "would create " or "created ") .. a.name)
      return "changed"
   end
   if #a.props == 0 then return "ok" end
   local names = {}
   for _, kv in ipairs(a.props) do names[#names + 1] = kv[1] end
   local have = values(sys, what, a.name, names)
   local set = {}
   for _, kv in ipairs(a.props) do
      if have[kv[1]] ~= kv[2] then set[#set + 1] = kv end
   end
   if #set == 0 then return "ok" end
   for _, kv in ipairs(set) do
      R.run(sys, what, { "zfs", "set", kv[1] .. "=" .. kv[2], a.name })
      sys:note(fmt("%s %s -> %s", kv[1], have[kv[1]] or "unset", kv[2]))
   end
   return "changed"
end

-- The probe: zfs get shows every declared value.
function impl.dataset.verify(sys, a)
   if #a.props == 0 then return true end
   local names = {}
   for _, kv in ipairs(a.props) do names[#names + 1] = kv[1] end
   local have = values(sys, "zfs.dataset " .. a.name, a.name, names)
   for _, kv in ipairs(a.props) do
      if have[kv[1]] ~= kv[2] then
         return false, fmt("zfs get says %s=%s on %s, want %s", kv[1], have[kv[1]] or "nothing",
                           a.name, kv[2])
      end
   end
   return true
end

function impl.destroyed.ensure(sys, a)
   local what = "zfs.dataset " .. a.name .. " (revert)"
   if not exists(sys, what, a.name) then return "ok" end
   -- Not -r: a dataset with children or snapshots is not destroyed.
   R.run(sys, what, { "zfs", "destroy", a.name })
   sys:note((sys.dry and "would destroy " or "destroyed ") .. a.name)
   return "changed"
end

-- pool/dataset/...: zfs(8)'s component names.
local function check_name(v, what)
   local err = args.matching(v, what, "[%w][%w_.:-]*/[%w_.:/-]*[%w_.:-]",
                             'a dataset such as "tank/data" (pool/name)')
   if err then return err end
   if v:find("//", 1, true) then return fmt("%s %s has an empty component", what, args.show(v)) end
   return nil, v
end

local function check_value(v, what)
   if math.type(v) == "integer" then v = tostring(v) end
   if v == true then v = "on" elseif v == false then v = "off" end
   if type(v) ~= "string" or v == "" then
      return fmt("%s must be a string, an integer or a boolean, got %s", what, args.got(v))
   end
   if v:find("[%s,=]") then return fmt("%s %s must not contain blanks, \",\" or \"=\"", what, args.show(v)) end
   return nil, v
end

--[[ zfs.dataset(name [, { mountpoint=, compression=, properties = { ... }, parents=,
                          destroy_on_revert= }])
  UnixLike (Linux with zfsutils, FreeBSD); revertable only with
  destroy_on_revert = true, since destroying a dataset loses its data.
  name: pool/dataset.  mountpoint (an absolute path, "none" or "legacy"),
  compression ("lz4", "zstd", "off"...), and properties: any other zfs
  properties ({ atime = "off", quota = "10G", recordsize = "1M" };
  true and false are on and off).  parents = true makes missing parent
  datasets (zfs create -p).
  Claims: the dataset (zfs:NAME, owned).
  Run time: zfs list -H -o name NAME; a missing dataset is made with
  zfs create -o PROPERTY=VALUE ... NAME; an existing one has each
  property read with zfs get -H -p -o property,value,source and set with
  zfs set PROPERTY=VALUE where it differs (values compared as zfs get -p
  prints them: give sizes in bytes, or expect a change each run).
  Nothing differs: ok.  A target without zfs fails (a dry run says what
  it would run).  Revert (destroy_on_revert = true only): zfs destroy
  NAME, without -r: a dataset with children or snapshots stays, and the
  revert fails.
  Verify: zfs get shows every declared value.
  Example:
    zfs.dataset("tank/backups", { mountpoint = "/srv/backups", compression = "lz4",
                                  properties = { atime = "off" } })
]]
function zfs.dataset(name, opts)
   local desc = "zfs dataset " .. (type(name) == "string" and name or "?")
   local nerr = check_name(name, "name")
   local oerr, o = args.options(opts, {
      mountpoint = function(v, what)
         if v == "none" or v == "legacy" then return nil, v end
         local e = args.abs_path(v, what)
         if not e and v:find("[%s,=]") then e = fmt("%s %s must not contain blanks", what, args.show(v)) end
         return e, v
      end,
      compression = check_value,
      properties = function(v, what)
         if type(v) ~= "table" or next(v) == nil or v[1] ~= nil then
            return fmt('%s must be a table such as { atime = "off" }, got %s', what, args.got(v))
         end
         local out = {}
         for k, x in pairs(v) do
            if type(k) ~= "string" or not k:find("^[a-z][a-z0-9_:.]*$") then
               return fmt("%s: %s is not a zfs property name", what, args.show(k))
            end
            if k == "mountpoint" or k == "compression" then
               return fmt("%s: give %s as its own option", what, k)
            end
            local e, val = check_value(x, what .. "." .. k)
            if e then return e end
            out[k] = val
         end
         return nil, out
      end,
      parents = args.boolean,
      destroy_on_revert = args.boolean,
   }, "zfs.dataset")
   local msg = args.join("zfs.dataset", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local props = {}
   if o.mountpoint then props[#props + 1] = { "mountpoint", o.mountpoint } end
   if o.compression then props[#props + 1] = { "compression", o.compression } end
   local extra = {}
   for k in pairs(o.properties or {}) do extra[#extra + 1] = k end
   table.sort(extra)
   for _, k in ipairs(extra) do props[#props + 1] = { k, o.properties[k] } end
   local a = { name = name, props = props, parents = o.parents }
   local claims = { core.claim.file_owned("zfs:" .. name, "zfs.dataset") }
   local up = core.leaf{ desc = desc, targets = "UnixLike", impl = impl.dataset, args = a,
                         claims = claims,
                         norevert = not o.destroy_on_revert
                            and "zfs.dataset is reverted only with destroy_on_revert = true: "
                                .. "destroying a dataset loses its data" or nil }
   if not o.destroy_on_revert then return up end
   local down = core.leaf{ desc = desc .. " destroyed", targets = "UnixLike", impl = impl.destroyed,
                           args = a, claims = { core.claim.file_absent("zfs:" .. name) } }
   return core.pair(up, down)
end

return args.strict_module(zfs, "zfs")
