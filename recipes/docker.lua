-- prop.docker: Docker containers on a host, provisioned as hosts of their
-- own (Propellor's Docker).
--
-- An image is made without a registry: a Debian or Ubuntu tree (the
-- rootfs cache of prop.container, debootstrap the first time) imported
-- with `docker import`; or, given as a string, pulled.  A container runs
-- `sleep infinity` under docker's --init as its first process (a minbase
-- image has no init of its own): it stays up, and the daemons prop starts
-- inside it (service.running) really run, in the container's own process
-- table and network, reachable through the ports it publishes.  Its run
-- parameters (docker.publish, docker.volume, docker.env) are properties
-- of the container; the parent's docker.running reads them, and a
-- container whose parameters changed is made again with its files kept.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local C = require "prop.container"

local docker = {}

local fmt, concat = string.format, table.concat

-- ---------------------------------------------------------------------
-- Values checked at evaluation.

-- Docker's names: an image repository (lowercase, "/"-separated parts,
-- with an optional :tag) and a container name (the same without "/" and
-- tag: its state is kept in an image named after it).
local function check_part(v)
   return v:find("^[a-z0-9][a-z0-9_.-]*$") and not v:find("[_.-][_.-][_.-]")
      and not v:find("[_.-]$")
end

local function check_container_name(v, what)
   if type(v) ~= "string" or v == "" then return args.nonempty_string(v, what) end
   if #v > 128 or not check_part(v) then
      return fmt('%s %s is not valid: expected a lowercase name such as "web" (letters a-z, '
                 .. 'digits, "_", ".", "-" between them)', what, args.show(v))
   end
   return nil, v
end

local function check_image_name(v, what)
   if type(v) ~= "string" or v == "" then return args.nonempty_string(v, what) end
   local repo, tag = v:match("^([^:@]+):([%w_][%w_.-]*)$")
   if not repo then repo = v end
   local ok = #v <= 255 and not repo:find("//") and repo:sub(-1) ~= "/"
   if ok then
      for part in repo:gmatch("[^/]+") do
         -- A registry host may carry a port: "registry.example.com:5000/app".
         if not check_part(part) and not part:find("^[%w.-]+:%d+$") then ok = false end
      end
   end
   if not ok or (tag and #tag > 128) then
      return fmt('%s %s is not valid: expected an image name such as "app-base" or '
                 .. '"debian:bookworm" (lowercase parts separated by "/", an optional :tag)',
                 what, args.show(v))
   end
   return nil, v
end

local image_mt = { __name = "docker image" }
image_mt.__index = function(_, k)
   error(fmt('a docker image has no field "%s"', tostring(k)), 2)
end
image_mt.__newindex = function()
   error("a docker image cannot be changed", 2)
end
image_mt.__tostring = function(self)
   return "docker.image " .. rawget(self, "name")
end

local function is_image(v)
   return getmetatable(v) == image_mt
end

local function is_invalid(v)
   return core.is_property(v) and v.kind == "invalid"
end

local image_opts = {
   mirror = function(v, what)
      return args.matching(v, what, "https?://[%w%-%.:%[%]_~/%%@]+", 'a URL such as "http://deb.debian.org/debian"')
   end,
   cache = args.abs_path,
}

--[[ docker.image(name, os [, { mirror=, cache= }])
  An image made on the host without a registry: a minbase tree of the OS
  given (os.debian(...) or os.buntish(...)), from prop's rootfs cache
  (cache, /var/cache/prop/rootfs unless told; debootstrap from mirror the
  first time), imported with `docker import` as name.  It is made only
  when docker has no image of that name; it is never rebuilt (remove it
  with docker image rm to have it made again).  It has no policy-rc.d:
  daemons start in its containers as on a machine of their own.  A string
  given instead of docker.image(...) to docker.container names an image
  docker pulls when it does not have it.
  Example:
    local base = docker.image("app-base", os.debian("bookworm", "amd64"))
]]
function docker.image(name, os_, opts)
   local nerr = check_image_name(name, "name")
   local oerr, o = C.check_os(os_, "os", { debian = true, buntish = true })
   local perr, p = args.options(opts, image_opts, "docker.image")
   local msg = args.join("docker.image", nerr, oerr, perr)
   if msg then return core.invalid("docker image " .. tostring(name), msg) end
   return setmetatable({ name = name, os = os_, family = o.family, suite = o.suite, arch = o.arch,
                         mirror = p.mirror, cache = p.cache }, image_mt)
end

--[[ docker.container(name, image, props)
  A container: a host named name (lowercase; "box/NAME" for prop run)
  that runs in Docker on the host docker.running puts it on.  image is a
  docker.image(...), whose OS the container's properties are checked
  against, or a string naming an image to pull ("debian:bookworm"): its
  OS is then the one an os.* property in props declares, else found when
  the container is run (/etc/os-release), as for a host that declares
  none.  The image needs /bin/sh and sleep.  Its run parameters are
  properties in props: docker.publish, docker.volume, docker.env,
  docker.cap_add.
  Example:
    local app = docker.container("app", base, {
      apt.installed { "nginx" }, service.running "nginx",
      docker.publish(8081, 80),
    })
]]
function docker.container(name, image, props)
   if is_invalid(image) then return image end
   local nerr = check_container_name(name, "name")
   local ierr, img
   if type(image) == "string" then
      ierr, img = check_image_name(image, "image")
   elseif is_image(image) then
      img = image
   else
      ierr = fmt("image must be docker.image(...) or the name of an image to pull, got %s",
                 args.got(image))
   end
   local perr = C.check_props(props, "properties")
   local msg = args.join("docker.container", nerr, ierr, perr)
   if msg then return core.invalid("docker container " .. tostring(name), msg) end
   local info = { "name", name }
   local list = {}
   if type(img) == "string" then
      info[#info + 1], info[#info + 2] = "image", img
      info[#info + 1], info[#info + 2] = "image.pull", "yes"
   else
      list[1] = rawget(img, "os")
      for _, kv in ipairs { { "image", rawget(img, "name") }, { "family", rawget(img, "family") },
                            { "suite", rawget(img, "suite") }, { "arch", rawget(img, "arch") },
                            { "mirror", rawget(img, "mirror") }, { "cache", rawget(img, "cache") } } do
         if kv[2] then info[#info + 1], info[#info + 2] = kv[1], kv[2] end
      end
   end
   list[#list + 1] = C.info("docker container " .. name, info)
   list[#list + 1] = C.expand_roles(name, props)
   return core.container("docker", name, list)
end

local function param(desc, key, value)
   return core.leaf{ desc = desc, info = { "container." .. key, value }, info_only = true,
                     norevert = desc .. " is a parameter of the container; remove it from the container instead" }
end

local function check_address(v, what)
   if type(v) == "string" and (v:find("^%d+%.%d+%.%d+%.%d+$") or v:find("^%[[%x:.]+%]$")) then
      return nil, v
   end
   return fmt('%s must be an IP address such as "127.0.0.1" or "[::1]", got %s', what,
              args.got(v))
end

--[[ docker.publish(host_port, container_port [, { address= }])
  A parameter of the docker container it is in (docker run -p): the
  host's host_port (on every address, or on address only, such as
  "127.0.0.1") reaches the container's container_port (TCP).  The port is
  the host's: the pre-pass checks it against the host's own ports and the
  other containers' (P014).
  Example:
    docker.publish(8080, 80)
    docker.publish(8443, 443, { address = "127.0.0.1" })
]]
function docker.publish(host_port, container_port, opts)
   local herr, h = args.port(host_port, "host_port")
   local cerr, c = args.port(container_port, "container_port")
   local oerr, o = args.options(opts, { address = check_address }, "docker.publish")
   local msg = args.join("docker.publish", herr, cerr, oerr)
   if msg then return core.invalid("docker publish", msg) end
   local value = (o.address and o.address .. ":" or "") .. h .. ":" .. c
   return param("docker publish " .. value, "publish", value)
end

local function check_mount_path(v, what)
   local err = args.abs_path(v, what)
   if err then return err end
   if v:find("[:,]") then
      return fmt('%s %s must not contain ":" or ",": docker -v splits on them', what, args.show(v))
   end
   return nil, v
end

--[[ docker.volume(host_path, container_path [, { host_root = true }])
  A parameter of the docker container it is in (docker run -v): the
  host's directory host_path is mounted at container_path inside.  What
  the container writes there outlives it.  A host_path that gives the
  container the host's root (/ itself, the Docker socket
  /run/docker.sock or /var/run/docker.sock, or /run and /var/run that
  hold it) is warning W109 unless host_root = true says it is meant.
  Example:
    docker.volume("/srv/app/data", "/var/lib/app")
]]
function docker.volume(host_path, container_path, opts)
   local herr = check_mount_path(host_path, "host_path")
   local cerr = check_mount_path(container_path, "container_path")
   local oerr, o = args.options(opts, { host_root = args.boolean }, "docker.volume")
   local msg = args.join("docker.volume", herr, cerr, oerr)
   if msg then return core.invalid("docker volume", msg) end
   local why = not o.host_root and C.host_root(host_path)
   if why then C.warn_host_root("docker.volume", "host_path " .. args.show(host_path), why) end
   return param("docker volume " .. host_path .. ":" .. container_path, "volume",
                host_path .. ":" .. container_path)
end

--[[ docker.env(name, value)
  A parameter of the docker container it is in (docker run -e): the
  environment variable name is value for the container's processes.
  It is not a secret: docker inspect shows it.
  Example:
    docker.env("APP_MODE", "production")
]]
function docker.env(name, value)
   local nerr = args.matching(name, "name", "[%a_][%w_]*", "a variable name such as \"APP_MODE\"")
   local verr
   if type(value) ~= "string" then
      verr = fmt("value must be a string, got %s", args.got(value))
   elseif value:find("[%z\n]") then
      verr = fmt("value %s must not contain a NUL or newline character", args.show(value))
   end
   local msg = args.join("docker.env", nerr, verr)
   if msg then return core.invalid("docker env", msg) end
   return param("docker env " .. name, "env", name .. "=" .. value)
end

-- Capabilities that make the container's root the host's, and how.
local host_root_caps = {
   SYS_ADMIN = "its root may mount file systems and leave its namespaces",
   SYS_MODULE = "its root may load modules into the host's kernel",
   DAC_READ_SEARCH = "it may open any file of the host's by its handle, outside its own root",
}

--[[ docker.cap_add(capability [, { host_root = true }])
  A parameter of the docker container it is in (docker run --cap-add):
  the container's processes get the Linux capability (its name without
  "CAP_", upper case: "NET_ADMIN", "SYS_TIME", ...) on top of Docker's
  default set.  NET_ADMIN lets firewall.nftables and
  firewall.open_declared load their rules in the container's own network
  namespace.  "ALL" is refused: give each capability the container needs.
  SYS_ADMIN, SYS_MODULE and DAC_READ_SEARCH give the container the host's
  root: warning W109, unless host_root = true says it is meant.
  Example:
    docker.cap_add "NET_ADMIN"
    docker.cap_add("SYS_ADMIN", { host_root = true })
]]
function docker.cap_add(capability, opts)
   local oerr, o = args.options(opts, { host_root = args.boolean }, "docker.cap_add")
   if oerr then return core.invalid("docker cap_add", args.join("docker.cap_add", oerr)) end
   local err
   if type(capability) ~= "string" then
      err = fmt("capability must be a string such as \"NET_ADMIN\", got %s", args.got(capability))
   elseif capability:upper() == "ALL" then
      err = 'capability "ALL" gives the container every capability of the host: name each one it needs'
   elseif not capability:find("^%u[%u_]*%u$") or capability:find("^CAP_") then
      err = fmt('capability %s is not a capability name such as "NET_ADMIN" (upper case, without "CAP_")',
                args.show(capability))
   end
   if err then return core.invalid("docker cap_add", "docker.cap_add: " .. err) end
   if host_root_caps[capability] and not o.host_root then
      C.warn_host_root("docker.cap_add", "capability " .. args.show(capability),
                       host_root_caps[capability])
   end
   return param("docker cap_add " .. capability, "cap_add", capability)
end

-- ---------------------------------------------------------------------
-- Run time, on the parent host.

local impl = { running = {}, removed = {}, pruned = {} }

-- Every docker command of a container's run: docker itself missing, or
-- dockerd unreachable, is said in those words once.
local function docker_ready(sys, what)
   if sys.cache["docker.ready"] then return end
   local argv = { "docker", "info", "--format", "{{.ServerVersion}}" }
   local r = sys:query(argv)
   if r.code == 127 or r.code == -1 then
      R.fail("%s: docker is not installed on this host (install docker.io)", what)
   end
   if r.code ~= 0 or not r.stdout:find("%S") then
      R.fail("%s: dockerd is not reachable, docker info says:\n%s\n(start it: systemctl start "
             .. "docker; or check DOCKER_HOST)", what, R.tail(r.stderr .. "\n" .. r.stdout, 4))
   end
   sys.cache["docker.ready"] = true
end

-- The id of the image name, or nil when docker has none.
local function image_id(sys, what, name)
   local r = R.query(sys, what, { "docker", "image", "inspect", "--format", "{{.Id}}", name })
   return r.code == 0 and r.stdout:match("%S+") or nil
end

local function image_present(sys, what, name)
   return image_id(sys, what, name) ~= nil
end

-- The image is there: pulled, or made from the rootfs cache.  Returns
-- whether it changed something.
local function ensure_image(sys, what, a)
   if image_present(sys, what, a.image) then return false end
   if a.pull then
      R.run(sys, what, { "docker", "pull", "--quiet", a.image })
      sys:note((sys.dry and "would pull " or "pulled ") .. a.image)
      return true
   end
   local spec = C.tree_spec(a.container)
   local tarball = C.cache_file(spec)
   if not sys:exists(tarball) then
      -- The first image of this OS: debootstrap (which fills the cache),
      -- in a tree of its own, removed once the tarball is kept.
      C.ensure_tree(sys, what, a.build_tree, spec)
      C.remove_tree(sys, what, a.build_tree)
   end
   R.run(sys, what, { "docker", "import", tarball, a.image })
   sys:note((sys.dry and "would import " or "imported ") .. tarball .. " as " .. a.image)
   return true
end

-- { running = bool, params = label, image = label } or nil.
local function inspect(sys, what, name)
   local r = R.query(sys, what, {
      "docker", "container", "inspect", "--format",
      '{{.State.Running}}|{{index .Config.Labels "prop.params"}}|'
         .. '{{index .Config.Labels "prop.image"}}', name })
   if r.code ~= 0 then
      if (r.stderr .. r.stdout):find("[Nn]o such") then return nil end
      R.command_failed(what, { "docker", "container", "inspect", name }, r)
   end
   local running, params, image = r.stdout:match("^(%a+)|([^|\n]*)|([^|\n]*)")
   return { running = running == "true", params = params, image = image }
end

local function run_argv(a, image)
   local argv = { "docker", "run", "-d", "--name", a.name, "--hostname", a.name, "--init",
                  "--label", "prop.params=" .. a.digest, "--label", "prop.image=" .. a.image }
   for _, p in ipairs(a.publish) do argv[#argv + 1] = "-p"; argv[#argv + 1] = p end
   for _, v in ipairs(a.volume) do argv[#argv + 1] = "-v"; argv[#argv + 1] = v end
   for _, e in ipairs(a.env) do argv[#argv + 1] = "-e"; argv[#argv + 1] = e end
   for _, c in ipairs(a.cap_add) do argv[#argv + 1] = "--cap-add"; argv[#argv + 1] = c end
   argv[#argv + 1] = image
   argv[#argv + 1] = "sleep"
   argv[#argv + 1] = "infinity"
   return argv
end

-- A Dockerfile ENV value, quoted.
local function env_change(kv)
   local k, v = kv:match("^([^=]+)=(.*)$")
   if not k then return nil end
   return fmt('ENV %s="%s"', k, (v:gsub('[\\"$]', "\\%0")))
end

-- The container again, with new parameters and its files kept: exported
-- to a tarball, imported as NAME:prop-state (with the image's
-- environment and working directory, not the old container's), and run
-- from that.
local function remake_keeping_state(sys, what, a)
   local state = a.name .. ":prop-state"
   local r = R.query(sys, what, {
      "docker", "image", "inspect", "--format",
      "{{range .Config.Env}}{{println .}}{{end}}|{{.Config.WorkingDir}}", a.image })
   local changes = {}
   if r.code == 0 then
      local envs, wd = r.stdout:match("^(.*)|([^\n]*)")
      for kv in (envs or ""):gmatch("[^\n]+") do
         local c = env_change(kv)
         if c then changes[#changes + 1] = c end
      end
      if wd and wd ~= "" then changes[#changes + 1] = "WORKDIR " .. wd end
   end
   -- The state image of an earlier remake: unused once this one is made.
   local before = image_id(sys, what, state)
   -- The export is as large as the container's files: under /var/tmp,
   -- in a directory of its own, removed once imported.
   local dir = R.run(sys, what, { "mktemp", "-d", "/var/tmp/prop-docker-state.XXXXXX" }).stdout
   dir = dir:match("^(/%S+)") or "/var/tmp/prop-docker-state.XXXXXX"
   local saved = dir .. "/" .. a.name .. ".tar"
   local ok, err = pcall(R.run, sys, what, { "docker", "export", "-o", saved, a.name })
   if not ok then
      sys:run({ "rm", "-rf", "--", dir }, R.any)
      error(err, 0)
   end
   -- Imported before the old container is removed: a failure leaves it.
   local argv = { "docker", "import" }
   for _, c in ipairs(changes) do argv[#argv + 1] = "--change"; argv[#argv + 1] = c end
   argv[#argv + 1] = saved
   argv[#argv + 1] = state
   ok, err = pcall(R.run, sys, what, argv)
   sys:run({ "rm", "-rf", "--", dir }, R.any)
   if not ok then error(err, 0) end
   R.run(sys, what, { "docker", "rm", "-f", a.name })
   R.run(sys, what, run_argv(a, state))
   if before and before ~= image_id(sys, what, state) then
      sys:run({ "docker", "image", "rm", before }, R.any)
   end
   sys:note(fmt("%s %s with new parameters, its files kept (through the image %s)",
                sys.dry and "would make again" or "made again", a.name, state))
end

function impl.running.ensure(sys, a)
   local what = "docker container " .. a.name
   docker_ready(sys, what)
   local changed = ensure_image(sys, what, a)
   local cur = inspect(sys, what, a.name)
   if cur == nil then
      R.run(sys, what, run_argv(a, a.image))
      sys:note((sys.dry and "would start " or "started ") .. a.name .. " from " .. a.image)
      return "changed"
   end
   if cur.image == "" or cur.image == "<no value>" then
      R.fail("%s: a container of that name exists that prop did not make (it has no prop.image "
             .. "label): prop does not replace it; remove it (docker rm -f %s) or choose another "
             .. "name", what, a.name)
   end
   if cur.image ~= a.image then
      -- Another image: the container is made anew from it.
      R.run(sys, what, { "docker", "rm", "-f", a.name })
      sys:run({ "docker", "image", "rm", a.name .. ":prop-state" }, R.any)
      R.run(sys, what, run_argv(a, a.image))
      sys:note(fmt("%s %s from %s (it ran %s)", sys.dry and "would make again" or "made again",
                   a.name, a.image, cur.image ~= "" and cur.image or "another image"))
      return "changed"
   end
   if cur.params ~= a.digest then
      remake_keeping_state(sys, what, a)
      return "changed"
   end
   if not cur.running then
      R.run(sys, what, { "docker", "start", a.name })
      sys:note((sys.dry and "would start " or "started ") .. a.name .. " (it was stopped)")
      return "changed"
   end
   return changed and "changed" or "ok"
end

-- The probe: docker says the container runs (State.Status running: not
-- paused, restarting or exited).
function impl.running.verify(sys, a)
   local r = sys:query({ "docker", "container", "inspect", "--format", "{{.State.Status}}", a.name })
   local status = r.code == 0 and r.stdout:match("%S+") or nil
   if status == "running" then return true end
   return false, fmt("docker container %s is %s, want running", a.name,
                     status or ("not there (" .. R.tail(r.stderr .. r.stdout, 1) .. ")"))
end

-- A paused container is unpaused, a stopped one started.
function impl.running.repair(sys, a)
   local what = "docker container " .. a.name
   local cur = R.query(sys, what, { "docker", "container", "inspect", "--format",
                                    "{{.State.Status}}", a.name })
   local status = cur.stdout:match("%S+")
   R.run(sys, what, { "docker", status == "paused" and "unpause" or "start", a.name })
   sys:note(fmt("%s %s (it was %s)", status == "paused" and "unpaused" or "started", a.name,
                status or "not running"))
end

function impl.removed.ensure(sys, a)
   local what = "docker container " .. a.name
   docker_ready(sys, what)
   local changed = false
   if inspect(sys, what, a.name) then
      R.run(sys, what, { "docker", "rm", "-f", a.name })
      sys:note((sys.dry and "would remove " or "removed ") .. "the container " .. a.name)
      changed = true
   end
   if image_present(sys, what, a.name .. ":prop-state") then
      R.run(sys, what, { "docker", "image", "rm", a.name .. ":prop-state" })
      changed = true
   end
   return changed and "changed" or "ok"
end

-- ---------------------------------------------------------------------
-- Attaching a container to its host.

local function container_of(v, recipe)
   if not (type(v) == "userdata" and pcall(function() return v.container end)
           and v.container == "docker") then
      return nil, fmt("%s needs a container made by docker.container, got %s", recipe,
                      args.got(v))
   end
   return v
end

-- A 64-bit digest (two 32-bit halves, in hex) of s.
local function digest(s)
   local h1, h2 = 2166136261, 5381
   for i = 1, #s do
      local b = s:byte(i)
      h1 = ((h1 ~ b) * 16777619) % 4294967296
      h2 = (h2 * 33 + b) % 4294967296
   end
   return fmt("%08x%08x", h1, h2)
end

local function sorted(list)
   local out = {}
   for i, v in ipairs(list) do out[i] = v end
   table.sort(out)
   return out
end

--[[ docker.running(c)
  DebianLike or any UnixLike host with docker, revertable.  Run time:
  the image is made or pulled when docker has none of its name; then the
  container c runs: `docker run -d --init --name NAME ... IMAGE sleep
  infinity` with its docker.publish, docker.volume, docker.env and
  docker.cap_add, when
  it does not exist; started when it is stopped; made again when its
  parameters changed (its files kept: exported and imported as the image
  NAME:prop-state, from which it runs) or its image changed (made anew
  from the new image).  Then prop run provisions it inside, through
  docker exec.  dockerd not running is a failure that says so.  Revert:
  the container is stopped and removed, with its NAME:prop-state image;
  the images it was made from are kept.
  Claims: the container's name, owned (two containers of one name on a
  host are P007), the image's name for what it is made from, and its
  published ports as the host's (P014).
  Example:
    host "box" { os.debian("bookworm", "amd64"), docker.running(app) }
]]
function docker.running(c)
   if is_invalid(c) then return c end
   local h, err = container_of(c, "docker.running")
   if not h then return core.invalid("docker running", err) end
   local name = C.get(h, "name") or h.short_name
   local image = C.get(h, "image")
   local publish, volume, env = sorted(h:info("container.publish")),
      sorted(h:info("container.volume")), sorted(h:info("container.env"))
   local cap_add = sorted(h:info("container.cap_add"))
   local ports = {}
   for _, p in ipairs(publish) do ports[#ports + 1] = math.tointeger(tonumber(p:match("(%d+):%d+$"))) end
   local spec = C.get(h, "image.pull") and "pull" or concat({ C.get(h, "family"), C.get(h, "suite"),
      C.get(h, "arch"), C.get(h, "mirror") or "-", C.get(h, "cache") or "-" }, " ")
   local params = concat({ "image=" .. image, "p=" .. concat(publish, ","),
                           "v=" .. concat(volume, ","), "e=" .. concat(env, "\0") }, "\n")
   -- Only when given: the digest of a container without capabilities
   -- stays what it was.
   if #cap_add > 0 then params = params .. "\nc=" .. concat(cap_add, ",") end
   -- The tree an image is made from the first time: beside the rootfs
   -- cache it fills, removed once the tarball is kept.
   local safe = image:gsub("[/:]", "_")
   local a = {
      name = name, image = image, pull = C.get(h, "image.pull") ~= nil, container = h,
      publish = publish, volume = volume, env = env, cap_add = cap_add, digest = digest(params),
      build_tree = (C.get(h, "cache") or C.default_cache) .. "/docker-" .. safe,
   }
   local owner = "docker container " .. name
   local claims = { claim.file_owned("docker:container/" .. name, owner),
                    claim.file_content("docker:image/" .. image, spec) }
   if not a.pull then
      claims[#claims + 1] = claim.file_directory(a.build_tree)
      claims[#claims + 1] = claim.file_directory(a.build_tree .. ".prop-new")
   end
   local what = "docker container " .. name
   local up = core.leaf{ desc = what .. " running", targets = "UnixLike", impl = impl.running,
                         args = a, claims = claims, container = h, ports = ports, publishes = true }
   local down = core.leaf{ desc = what .. " removed", targets = "UnixLike", impl = impl.removed,
                           args = a, claims = claims, container = h, detaches = true }
   return core.pair(up, down)
end

-- ---------------------------------------------------------------------
-- Pruning.

-- What each kind prunes, the look that lists what it would remove (one id
-- per line) and the command that removes it; label narrows both.
local prune_kinds = {
   containers = { list = { "docker", "container", "ls", "-a", "-q", "--filter", "status=exited",
                           "--filter", "status=created", "--filter", "status=dead" },
                  prune = { "docker", "container", "prune", "-f" } },
   images = { list = { "docker", "image", "ls", "-q", "--filter", "dangling=true" },
              prune = { "docker", "image", "prune", "-f" } },
   volumes = { list = { "docker", "volume", "ls", "-q", "--filter", "dangling=true" },
               prune = { "docker", "volume", "prune", "-f" } },
}
local prune_order = { "containers", "images", "volumes" }

local function with(argv, more)
   local out = {}
   for _, x in ipairs(argv) do out[#out + 1] = x end
   for _, x in ipairs(more) do out[#out + 1] = x end
   return out
end

-- The ids kind would prune now.
local function prunable(sys, what, kind, label)
   local argv = prune_kinds[kind].list
   if label then argv = with(argv, { "--filter", "label=" .. label }) end
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   local ids = {}
   for id in (r.stdout or ""):gmatch("%S+") do ids[#ids + 1] = id end
   return ids
end

function impl.pruned.ensure(sys, a)
   local what = "docker.pruned"
   docker_ready(sys, what)
   local changed = false
   for _, kind in ipairs(prune_order) do
      if a[kind] then
         local ids = prunable(sys, what, kind, a.label)
         if #ids > 0 then
            local argv = prune_kinds[kind].prune
            if a.label then argv = with(argv, { "--filter", "label=" .. a.label }) end
            R.run(sys, what, argv)
            -- Listed is not always prunable (a dangling image a stopped
            -- container uses stays): what went is what counts.
            local gone = sys.dry and #ids or #ids - #prunable(sys, what, kind, a.label)
            if gone > 0 then
               sys:note(fmt("%s %d %s", sys.dry and "would prune" or "pruned", gone,
                            gone == 1 and kind:sub(1, -2) or kind))
               changed = true
            end
         end
      end
   end
   return changed and "changed" or "ok"
end

--[[ docker.pruned { containers=, images=, volumes=, label= }
  UnixLike, not revertable (what a prune removes is gone).
  What Docker keeps and no longer uses, removed: stopped containers
  (containers = true: docker container prune), dangling images (images =
  true: untagged ones no container uses, docker image prune), volumes no
  container uses (volumes = true: docker volume prune, which loses their
  data).  At least one must be true.  label = "KEY" or "KEY=VALUE"
  limits every kind to what carries that label.
  "ok" means there was nothing to prune: for each kind, docker ... ls
  with the same filters lists nothing (or the prune removed none of what
  it listed, such as a dangling image a stopped container still uses);
  else the prune runs: changed.
  Claims nothing.
  Example:
    docker.pruned { images = true, containers = true }
]]
function docker.pruned(opts, ...)
   local desc = "docker pruned"
   local oerr, o
   if type(opts) ~= "table" then
      oerr = fmt("give what to prune, such as { images = true }, got %s", args.got(opts))
   else
      oerr, o = args.options(opts, {
         containers = args.boolean, images = args.boolean, volumes = args.boolean,
         label = function(v, what)
            return args.matching(v, what, "[%w][%w._/-]*=?[^\n\r]*",
                                 'a label such as "com.example.tmp" or "stage=build"')
         end,
      }, "docker.pruned")
      if not oerr and not (o.containers or o.images or o.volumes) then
         oerr = "nothing to prune: set containers, images or volumes to true"
      end
   end
   local msg = args.join("docker.pruned", oerr,
                         select("#", ...) > 0 and "takes one table of options" or nil)
   if msg then return core.invalid(desc, msg) end
   local kinds = {}
   for _, k in ipairs(prune_order) do if o[k] then kinds[#kinds + 1] = k end end
   desc = desc .. " (" .. table.concat(kinds, ", ") .. (o.label and ", label " .. o.label or "") .. ")"
   return core.leaf{ desc = desc, targets = "UnixLike", impl = impl.pruned,
                     args = { containers = o.containers, images = o.images, volumes = o.volumes,
                              label = o.label },
                     norevert = "docker.pruned has no revert action: what a prune removes is gone" }
end

return args.strict_module(docker, "docker")
