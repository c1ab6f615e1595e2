-- prop.selinux: the arguments of its recipes, checked while the site is
-- read (each mistake a P012 at its line).
local T = require "check"
local show = prop_module "show"

-- mode
T.eq(T.invalid(selinux.mode, "enforced"),
     'selinux.mode: mode must be "enforcing", "permissive" or "disabled", got "enforced"', "mode: a typo")
T.eq(T.invalid(selinux.mode),
     'selinux.mode: mode must be "enforcing", "permissive" or "disabled", got nothing', "mode: none")
T.eq(T.invalid(selinux.mode, "permissive", { now = true }),
     'unknown key "now" for selinux.mode (expected no options)', "mode: no options")
T.eq(T.invalid(selinux.mode, "permissive"), nil, "mode: permissive is fine")
local p = selinux.mode "enforcing"
T.err(show.property(p), "claims file.setting /etc/selinux/config \"SELINUX=enforcing\"", "mode: its claim")
T.err(show.property(p), "if DebianLike: apt installed (without recommends) selinux-utils policycoreutils "
      .. "selinux-policy-default", "mode: Debian's packages")
T.err(show.property(p), "if RedHatLike: dnf installed libselinux-utils policycoreutils "
      .. "selinux-policy-targeted", "mode: Red Hat's packages")
T.ok(p.kind ~= "revertable" and not p.type:find("revertable", 1, true), "mode: not revertable")

-- boolean
T.eq(T.invalid(selinux.boolean, "httpd can", true),
     'selinux.boolean: name "httpd can" is not valid: expected a name of letters, digits and "_" '
     .. 'such as "httpd_can_network_connect"', "boolean: a bad name")
T.eq(T.invalid(selinux.boolean, "httpd_can_network_connect", "on"),
     'selinux.boolean: value must be true or false, got string "on"', "boolean: on is not a boolean")
T.eq(T.invalid(selinux.boolean, "x", true, { persistant = true }),
     'unknown key "persistant" for selinux.boolean (did you mean "persistent"?)', "boolean: a typo in the options")
T.eq(T.invalid(selinux.boolean, "x", true, { persistent = "yes" }),
     'selinux.boolean: persistent must be true or false, got string "yes"', "boolean: persistent a string")
p = selinux.boolean("httpd_can_network_connect", true)
T.err(show.property(p), 'claims file.setting /var/lib/selinux "boolean httpd_can_network_connect=on"',
      "boolean: its claim")
T.err(show.property(p), "policycoreutils-python-utils", "boolean: semanage's package")
T.err(show.property(revert(p)), "runs: selinux boolean httpd_can_network_connect at the policy's default",
      "boolean: its revert")
local once = selinux.boolean("x", true, { persistent = false })
T.ok(not once.type:find("revertable", 1, true), "boolean: running only, not revertable")
T.eq(p.type, "DebianLike | RedHatLike, revertable", "boolean: persistent, revertable")

-- fcontext
T.eq(T.invalid(selinux.fcontext, "srv/web", "httpd_sys_content_t"),
     'selinux.fcontext: pattern "srv/web" must be an absolute path pattern (starting with /)',
     "fcontext: a relative pattern")
T.eq(T.invalid(selinux.fcontext, "/srv/web", "httpd_sys_content"),
     'selinux.fcontext: type "httpd_sys_content" is not valid: expected an SELinux type such as '
     .. '"httpd_sys_content_t" (letters, digits, "_", ending in "_t")', "fcontext: a type without _t")
T.eq(T.invalid(selinux.fcontext, "/srv/a b", "var_t"),
     'selinux.fcontext: pattern "/srv/a b" must not contain blanks or control characters', "fcontext: a blank")
T.ok(T.invalid(selinux.fcontext, "/srv/web", "var_t", { ftype = "x" })
     :find('ftype must be one of "a" (all files)', 1, true), "fcontext: a bad ftype")
T.eq(T.invalid(selinux.fcontext, "/srv/web", "var_t", { ftype = "directory", restorecon = false }), nil,
     "fcontext: ftype by name")
p = selinux.fcontext("/srv/web(/.*)?", "httpd_sys_content_t", { ftype = "directory" })
T.err(show.property(p), 'claims file.setting /var/lib/selinux "fcontext /srv/web(/.*)? (d)=httpd_sys_content_t"',
      "fcontext: its claim")

-- port
T.eq(T.invalid(selinux.port, 70000, "tcp", "http_port_t"), "selinux.port: port 70000 is outside 1..65535",
     "port: out of range")
T.eq(T.invalid(selinux.port, "80-70", "tcp", "http_port_t"),
     'selinux.port: port "80-70" is not a port or a range such as "8080-8090" (in 1..65535)', "port: a bad range")
T.eq(T.invalid(selinux.port, 8080, "http", "http_port_t"),
     'selinux.port: proto must be "tcp", "udp", "dccp" or "sctp", got "http"', "port: a bad protocol")
T.eq(T.invalid(selinux.port, 8080, "tcp", "http port"),
     'selinux.port: type "http port" is not valid: expected an SELinux type such as "httpd_sys_content_t" '
     .. '(letters, digits, "_", ending in "_t")', "port: a bad type")
p = selinux.port("9000-9010", "udp", "http_port_t")
T.eq(p.desc, "selinux port udp/9000-9010 http_port_t", "port: a range")
T.ok(not show.property(selinux.port(8080, "tcp", "http_port_t")):find("ports", 1, true),
     "port: declares no port")

-- module
local TE = "module myapp 1.0;\nrequire { type httpd_t; }\n"
T.eq(T.invalid(selinux.module, "myapp"),
     "selinux.module: give one of source (the text of a .te) or path (a .pp on the target)", "module: no source")
T.eq(T.invalid(selinux.module, "myapp", { source = TE, path = "/x.pp" }),
     "selinux.module: give source or path, not both", "module: both")
T.eq(T.invalid(selinux.module, "other", { source = TE }),
     'selinux.module: source declares module "myapp", not "other"', "module: the name differs")
T.eq(T.invalid(selinux.module, "myapp", { source = "allow a b;\n" }),
     'selinux.module: source has no "module NAME VERSION;" line', "module: no module line")
T.eq(T.invalid(selinux.module, "myapp", { path = "x.pp" }),
     "selinux.module: path must be an absolute path (starting with /), got relative path \"x.pp\"",
     "module: a relative path")
T.eq(T.invalid(selinux.module, "my-app", { path = "/x.pp" }),
     'selinux.module: name "my-app" is not valid: expected a name of letters, digits and "_" such as '
     .. '"httpd_can_network_connect"', "module: a bad name")
T.eq(T.invalid(selinux.module, "myapp", { source = TE }), nil, "module: a good source")
T.err(show.property(revert(selinux.module("myapp", { path = "/x.pp" }))), "runs: selinux module myapp removed",
      "module: its revert")

T.done()
