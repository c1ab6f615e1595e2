-- prop.container: the checks of the container recipes, their info, and
-- the making of a tree (on a target in memory).
local T = require "check"
local C = prop_module "container"
local fakesys = require "fakesys"

-- check_os
local err, o = C.check_os(os.debian("bookworm", "amd64"), "os")
T.eq({ err, o }, { nil, { family = "debian", suite = "bookworm", arch = "amd64" } }, "check_os: debian")
T.eq(C.check_os("bookworm", "os"),
     'os must be an OS declaration such as os.debian("bookworm", "amd64"), got string "bookworm"',
     "check_os: a string")
T.eq(C.check_os(os.freebsd("14.1", "amd64"), "os", { debian = true, buntish = true }),
     "os is freebsd: this kind of container runs buntish or debian", "check_os: a family it does not run")

-- check_path, check_name, check_props
T.eq({ C.check_path("/srv/c//", "path") }, { nil, "/srv/c" }, "check_path: trailing slashes")
T.eq(C.check_path("/", "path"), "path must not be / : a container is a directory of its own", "check_path: /")
T.eq(C.check_path("srv", "path"), 'path must be an absolute path (starting with /), got relative path "srv"',
     "check_path: relative")
T.eq({ C.check_name("web-1", "name") }, { nil, "web-1" }, "check_name")
T.eq(C.check_name("-web", "name"),
     'name "-web" is not valid: expected a name such as "web" (letters, digits, "_", ".", "-")',
     "check_name: a leading dash")
local props = { file.directory "/x" }
T.eq({ C.check_props(props, "props") }, { nil, props }, "check_props: a list")
T.eq(C.check_props(file.directory "/x", "props"), "props must be a list of properties { ... }, got a userdata",
     "check_props: one property")
T.eq(C.check_props(3, "props"), "props must be a list of properties { ... }, got number 3", "check_props: a number")

-- info and get
local info = C.info("container c", { "family", "debian", "suite", "bookworm", "arch", "amd64", "port", 22 })
T.eq(info.kind, "info", "info: an info leaf")
T.eq(info.info["container.port"], { "22" }, "info: values as strings")
local h = host "box" { os.debian("bookworm", "amd64"), info }
T.eq(C.get(h, "suite"), "bookworm", "get")
T.eq(C.get(h, "mirror"), nil, "get: missing")
local spec = C.tree_spec(h)
T.eq({ spec.family, spec.suite, spec.arch, spec.variant, spec.cache },
     { "debian", "bookworm", "amd64", "minbase", C.default_cache }, "tree_spec: with defaults")
-- The sum of the mirror and the packages ("|" alone: 0x7c).
T.eq(C.cache_file(spec), C.default_cache .. "/debian-bookworm-amd64-minbase-0000007c.tar.gz", "cache_file")
spec.mirror = "http://m"
T.ok(C.cache_file(spec) ~= C.default_cache .. "/debian-bookworm-amd64-minbase-0000007c.tar.gz",
     "cache_file: another mirror, another file")

-- remove_tree
local sys = fakesys.new { files = {
   ["/srv/c"] = { type = "directory" },
   ["/proc/self/mounts"] = "proc /srv/c/proc proc rw 0 0\nx /srv/c/dev/pts devpts rw 0 0\n"
      .. "y /srv/cc tmpfs rw 0 0\n" } }
T.eq(C.remove_tree(sys, "w", "/srv/none"), false, "remove_tree: nothing there")
T.eq(C.remove_tree(sys, "w", "/srv/c"), true, "remove_tree")
T.eq(sys.log, { "umount -l /srv/c/dev/pts", "umount -l /srv/c/proc", "rm -rf --one-file-system -- /srv/c" },
     "remove_tree: the mounts below, deepest first, then the tree alone")

-- ensure_tree
sys = fakesys.new { files = { ["/srv/c/bin/sh"] = "" } }
T.eq(C.ensure_tree(sys, "w", "/srv/c", spec), false, "ensure_tree: a system there")
sys = fakesys.new { files = { ["/srv/c"] = { type = "directory" } },
                    replies = { ["ls -A /srv/c"] = { stdout = "data\n" } } }
T.raises(function() C.ensure_tree(sys, "w", "/srv/c", spec) end,
         "w: /srv/c exists and is not a system (no /bin/sh in it): prop does not replace it",
         "ensure_tree: refuses a directory with something else")
spec = C.tree_spec(h)
sys = fakesys.new { files = { [C.cache_file(spec)] = "", ["/srv"] = { type = "directory" } } }
T.eq(C.ensure_tree(sys, "w", "/srv/c", spec), true, "ensure_tree: from the cache")
T.eq(sys.log[1], "mkdir -m 0755 -- /srv/c.prop-new", "ensure_tree: made aside")
T.err(sys.log[2], "-C /srv/c.prop-new -xpzf " .. C.cache_file(spec), "ensure_tree: the cached tarball")
T.eq(sys.log[#sys.log], "mv -T -- /srv/c.prop-new /srv/c", "ensure_tree: renamed once complete")
T.err(sys.files["/srv/c.prop-new/usr/sbin/policy-rc.d"].content, "exit 101", "ensure_tree: no daemon starts")
sys = fakesys.new { files = { ["/srv"] = { type = "directory" } },
                    replies = { debootstrap = { code = 1, stderr = "E: no network\n" } } }
sys.replies.mkdir = function(argv)
   sys.files[argv[#argv]] = { type = "directory" }
   return { code = 0 }
end
T.raises(function() C.ensure_tree(sys, "w", "/srv/c", spec) end, "E: no network", "ensure_tree: debootstrap fails")
T.eq(sys.log[#sys.log], "rm -rf --one-file-system -- /srv/c.prop-new", "ensure_tree: and leaves nothing")

T.done()
