-- prop.runtime: what properties share at run time, on a target in memory.
local T = require "check"
local R = prop_module "runtime"
local fakesys = require "fakesys"

-- messages of commands
T.raises(function() R.fail("%s: %d", "x", 3) end, "x: 3", "fail")
T.eq(R.tail("a\n\n  \nb\nc\n", 2), "b\nc", "tail: the last non-empty lines")
T.eq(R.tail(nil), "", "tail: nothing")
T.eq(R.show_argv({ "env", "LC_ALL=C", "A_B=1", "ls", "a b" }), "ls 'a b'", "show_argv: env left out")
T.eq(R.show_argv(R.apt_get("install", "x")), "apt-get install x", "show_argv: apt-get's -o left out")
T.raises(function() R.command_failed("w", { "false" }, { code = 2, stderr = "bad\n", stdout = "" }) end,
         "w: false exited with 2:\nbad", "command_failed: stderr")
T.raises(function() R.command_failed("w", { "false" }, { code = 1, stderr = "", stdout = "out\n" }) end,
         "w: false exited with 1:\nout", "command_failed: stdout when stderr is empty")

local sys = fakesys.new { replies = {
   ["false"] = { code = 1, stderr = "no\n" },
   ["missing"] = { code = 127, stderr = "not found\n" },
   ["uname -s"] = { code = 0, stdout = "Linux\n" },
} }
T.eq(R.run(sys, "w", { "true" }).code, 0, "run: success")
T.raises(function() R.run(sys, "w", { "false" }) end, "w: false exited with 1:\nno", "run: failure raises")
T.eq(R.query(sys, "w", { "false" }).code, 1, "query: an exit code is the caller's")
T.raises(function() R.query(sys, "w", { "missing" }) end, "w: missing exited with 127", "query: 127 raises")
T.eq(R.kernel(sys), "Linux", "kernel")
local n = #sys.log
T.eq(R.kernel(sys), "Linux", "kernel: again")
T.eq(#sys.log, n, "kernel: asked once")

-- the kind of target
T.eq(R.is_freebsd(fakesys.new { os = "freebsd" }), true, "is_freebsd: declared")
T.eq(R.is_freebsd(fakesys.new { os = "debian" }), false, "is_freebsd: declared otherwise")
T.eq(R.is_freebsd(fakesys.new { files = { ["/bin/freebsd-version"] = "" } }), true, "is_freebsd: the tool")
T.eq(R.is_dir_tree(fakesys.new { transport = "dir:/srv/t" }), true, "is_dir_tree")
T.eq(R.is_dir_tree(fakesys.new {}), false, "is_dir_tree: local")
T.eq(R.kernel_not_own(fakesys.new {}), nil, "kernel_not_own: its own")
T.eq(R.kernel_not_own(fakesys.new { container = "chroot" }), "a chroot shares this machine's kernel",
     "kernel_not_own: chroot")
T.eq(R.kernel_not_own(fakesys.new { container = "docker" }), "a docker container shares its host's kernel",
     "kernel_not_own: docker")

-- lines and modes
T.eq({ R.split_lines("a\nb\n") }, { { "a", "b" }, true }, "split_lines: ended")
T.eq({ R.split_lines("a\nb") }, { { "a", "b" }, false }, "split_lines: not ended")
T.eq({ R.split_lines(nil) }, { {}, true }, "split_lines: nothing")
T.eq(R.mode_number("0644"), 420, "mode_number: octal")
T.eq(R.mode_number(420), 420, "mode_number: a number")
T.raises(function() R.mode_number("9x") end, '"9x" is not an octal mode', "mode_number: bad")
local st = { mode = 420, owner = "root", uid = 0, group = "adm", gid = 4 }
T.eq(R.attrs_to_fix(st, { mode = "0644", owner = "0", group = "adm" }), nil, "attrs_to_fix: all match")
T.eq(R.attrs_to_fix(st, { mode = "0600", owner = "www", group = "4" }), { mode = 384, owner = "www" },
     "attrs_to_fix: what differs")

-- files
sys = fakesys.new { files = { ["/a"] = "old\n", ["/d"] = { type = "directory" },
                              ["/l"] = { type = "link", target = "/a" },
                              ["/r"] = { type = "link", target = "a" } } }
T.eq(R.ensure_content(sys, "w", "/a", "old\n"), false, "ensure_content: the same")
T.eq(R.ensure_content(sys, "w", "/a", "new\n", { mode = "0600" }), true, "ensure_content: new content")
T.eq(sys.files["/a"].content, "new\n", "ensure_content: written")
T.eq(sys.files["/a"].mode, 384, "ensure_content: with the mode")
T.eq(R.ensure_content(sys, "w", "/a", "new\n", { mode = "0640" }), true, "ensure_content: a mode only")
T.eq(sys.log[#sys.log], "chattr /a", "ensure_content: by chattr")
T.raises(function() R.ensure_content(sys, "w", "/d", "x") end, "w: /d is a directory, not a file",
         "ensure_content: a directory")
T.eq({ R.follow(sys, "/l") }, { "/a", sys:stat("/a") }, "follow: an absolute link")
T.eq((R.follow(sys, "/r")), "/a", "follow: a relative link")
T.eq(R.ensure_lines(sys, "w", "/l", { "new", "x", "y" }), true, "ensure_lines: through a link")
T.eq(sys.files["/a"].content, "new\nx\ny\n", "ensure_lines: only the missing appended")
T.eq(R.ensure_lines(sys, "w", "/a", { "y", "x" }), false, "ensure_lines: there already")
T.raises(function() R.ensure_lines(sys, "w", "/d", { "x" }) end, "w: /d is a directory, not a file",
         "ensure_lines: a directory")
T.eq(R.ensure_no_lines(sys, "w", "/a", { "x", "zz" }), true, "ensure_no_lines")
T.eq(sys.files["/a"].content, "new\ny\n", "ensure_no_lines: removed")
T.eq(R.ensure_no_lines(sys, "w", "/none", { "x" }), false, "ensure_no_lines: no file")

-- apt and dpkg
local argv = R.apt_get("install", "-y", "x")
T.eq({ argv[1], argv[2], argv[#argv - 1], argv[#argv] }, { "env", "DEBIAN_FRONTEND=noninteractive", "-o",
     "DPkg::Lock::Timeout=600" }, "apt_get: environment and lock timeout")
T.eq(R.list_has(R.apt_get("install", "-s"), "DPkg::Lock::Timeout=600"), false, "apt_get: none for -s")
T.eq(R.list_has({ "a", "b" }, "b"), true, "list_has")
local dpkg = "dpkg\tamd64\tii \nvim\tamd64\tii \ngone\tamd64\trc \nlib\ti386\tii \n"
sys = fakesys.new { replies = { ["dpkg-query"] = { code = 0, stdout = dpkg } } }
local status = R.dpkg_status(sys)
T.eq({ status.vim, status.gone, status.lib, status["lib:i386"] }, { "ii ", "rc ", nil, "ii " },
     "dpkg_status: native names unqualified")
T.eq({ R.dpkg_installed("ii "), R.dpkg_installed("rc "), R.dpkg_installed("iiR") }, { true, false, false },
     "dpkg_installed")
T.eq({ R.dpkg_removed(nil), R.dpkg_removed("rc "), R.dpkg_removed("ii ") }, { true, true, false },
     "dpkg_removed")
T.eq(R.apt_install(sys, "apt.installed", { "vim" }), false, "apt_install: installed already")
T.eq(R.apt_remove(sys, "apt.removed", { "gone" }), false, "apt_remove: removed already")
sys.dry = true
T.eq(R.apt_install(sys, "apt.installed", { "vim", "nano" }), true, "apt_install: a missing one")
T.eq(sys.notes[#sys.notes], "would install: nano", "apt_install: the note")

-- services
sys = fakesys.new { files = { ["/run/systemd/system"] = { type = "directory" } },
                    replies = { ["systemctl is-active --quiet nginx"] = { code = 3 } } }
T.eq(R.init_system(sys), "systemd", "init_system: systemd")
T.eq(R.init_system(fakesys.new {}), "sysv", "init_system: sysv")
T.eq(R.init_system(fakesys.new { os = "freebsd" }), "rc.d", "init_system: rc.d")
T.eq(R.service_is_running(sys, "nginx"), false, "service_is_running: systemctl is-active says no")
T.eq(R.ensure_running(sys, "nginx"), true, "ensure_running: started")
T.eq(sys.log[#sys.log], "systemctl start nginx", "ensure_running: with systemctl")
sys = fakesys.new { container = "chroot" }
T.eq(R.service_is_running(sys, "nginx"), false, "service_is_running: a chroot runs none")
R.service_do(sys, "nginx", "start")
T.err(sys.notes[1], "service nginx not started: no daemon runs in a chroot", "service_do: in a chroot")
T.eq(R.in_chroot(sys), true, "in_chroot")

-- accounts
sys = fakesys.new { files = {
   ["/etc/passwd"] = "root:x:0:0:root:/root:/bin/bash\nwww:x:33:33:web:/var/www:/usr/sbin/nologin\n+nis\n",
   ["/etc/group"] = "root:x:0:\nadm:x:4:www, root\n" } }
local users = R.passwd(sys)
T.eq(users.www, { name = "www", uid = 33, gid = 33, comment = "web", home = "/var/www",
                  shell = "/usr/sbin/nologin" }, "passwd: an entry")
T.eq(users["+nis"], nil, "passwd: NIS lines skipped")
local groups, by_gid = R.groups(sys)
T.eq(groups.adm.members, { www = true, root = true }, "groups: members")
T.eq(by_gid[4].name, "adm", "groups: by gid")
T.raises(function() R.passwd(fakesys.new {}) end, "/etc/passwd does not exist on the target",
         "passwd: missing")

T.done()
