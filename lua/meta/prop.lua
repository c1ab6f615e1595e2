---@meta prop
-- prop's API for lua-language-server: completion, hover and type checks
-- while editing a site file.  This file is never run; prop does not embed
-- it (only lua/prop/*.lua and recipes/*.lua are embedded).
--
-- Installed as share/prop/meta/prop.lua.  Point the language server at it
-- and switch off the standard libraries a site does not have, in the
-- .luarc.json next to the site:
--
--   {
--     "runtime.version": "Lua 5.4",
--     "runtime.builtin": { "io": "disable", "os": "disable",
--                          "debug": "disable", "package": "disable" },
--     "workspace.library": [ "/usr/local/share/prop/meta" ]
--   }
--
-- Inside a site `os` is prop's OS module (os.debian, ...), not Lua's.
-- See prop-site(5), and lua/README.md for the run-time `sys` handle.

-- ---------------------------------------------------------------------
-- Types

---An OS family.
---@alias prop.Family "debian"|"buntish"|"rhel"|"fedora"|"arch"|"freebsd"

---A family or a group of families.
---@alias prop.Target prop.Family|"DebianLike"|"RedHatLike"|"ArchLinux"|"FreeBSD"|"Linux"|"UnixLike"

---What a property can run on: a family, a group, or a list of them.
---@alias prop.Targets prop.Target|prop.Target[]

---A property, or a plain list of properties (taken as `props { ... }`).
---@alias prop.Properties prop.Property|prop.Property[]

---A file's content: a string, or a list of lines joined with "\n" and
---ending with one.
---@alias prop.Content string|string[]

---A file mode in octal, as a string: "0644", "755".
---@alias prop.Mode string

---A user or group: a name, or a numeric id (0..4294967294) as a number or a string of digits.
---@alias prop.Account string|integer

---One resource a leaf claims; the pre-pass compares the claims of a host.
---@class prop.Claim
---@field kind string  "file.content", "package.installed", "service.running", "user", ...
---@field key string   the path, package, service, account or "hostname"
---@field value? string the exact value (absent for a secret)
---@field secret? boolean the value is secret: compared by the pre-pass, never shown
---@field id? integer  a uid or gid
---@field origin string "site.lua:12"

---A property: something that can be said about a system.  Immutable;
---every combinator makes a new one.  `tostring(p)` is
---`"apt installed foo : DebianLike, revertable"`.
---@class prop.Property
---@field desc string what it says ("apt installed foo")
---@field targets prop.Family[] the families it can run on, sorted
---@field revertable boolean whether `revert(p)` is allowed
---@field ports integer[] the ports it uses, sorted
---@field info table<string, string[]> the facts it carries, by key
---@field origin string where it was made: "site.lua:12"
---@field kind "property"|"info"|"requires"|"before"|"on_change"|"fallback"|"pick_os"|"revertable"|"revert"|"props"|"describe"|"invalid"|"only_if"
---@field type string its type in words: "DebianLike, revertable"
---@field children prop.Property[] the parts of a combinator
---@field claims prop.Claim[] what its leaves claim
---@field reverted? prop.Property what runs when it is reverted
---@field paired boolean a recipe made together with its revert
---@field container? prop.Host the container a leaf puts on its host (or removes)
local Property = {}

---`a:requires(b)`: ensure `b`; if it did not fail, ensure `a`.
---Targets ∩, revertable iff both are, info ∪, ports ∪.
---@param b prop.Properties
---@return prop.Property
function Property:requires(b) end

---`a:before(b)`: ensure `a`; if it did not fail, ensure `b`.
---@param b prop.Properties
---@return prop.Property
function Property:before(b) end

---`a:on_change(b)`: ensure `a`; ensure `b` only if `a` changed.
---`b` is kept owed on the target until it has run without failing: a
---run that fails or is killed before `b` leaves it to the next run.
---Revertable iff `a` is.
---@param b prop.Properties
---@return prop.Property
function Property:on_change(b) end

---`a:fallback(b)`: ensure `a`; ensure `b` only if `a` failed.
---@param b prop.Properties
---@return prop.Property
function Property:fallback(b) end

---`p:describe "text"`: `p`, shown as `text`.  Same type as `p`.
---@param text string
---@return prop.Property
function Property:describe(text) end

---`p:only_if(test)`: ensure `p` only when `test(sys)` returns true at run
---time; otherwise ok (Propellor's `check`).  The test may only look
---(sys:query, read, stat).  Same type as `p`.
---@param test fun(sys: prop.Sys): boolean?
---@return prop.Property
function Property:only_if(test) end

---`p:period("daily")`: ensure `p` at most once a period ("daily",
---"weekly", "monthly" or seconds); the time of its last successful run
---is kept on the target under /var/lib/prop/period/.  Not due: ok.
---@param every "daily"|"weekly"|"monthly"|integer
---@return prop.Property
function Property:period(every) end

---`p:tag("ntp", ...)`: `p` itself, tagged (and its parts with it), for
---`prop run --tags` and `--skip-tags`.
---@param ... string letters, digits, "_", "-", "."
---@return prop.Property
function Property:tag(...) end

---A host: a named machine with its properties.
---@class prop.Host
---@field name string
---@field os? prop.Family the family its os.* property declares
---@field origin string where it was declared
---@field properties prop.Property[] its top-level properties, in order
---@field container? "chroot"|"nspawn"|"docker"|"jail" a container's kind; nil for a host
---@field short_name string a container's own name ("web" of "box/web")
---@field parent? prop.Host the host a container is put on
---@field containers prop.Host[] the containers put on this host, in order
---@field attached_by? prop.Property the property that puts a container on its parent
local Host = {}

---The host's info for `key` ("ipv4", "alias", "connect", ...): the first
---value, and every value in declaration order.
---@param key string
---@return string? first
---@return string[] all
function Host:info(key) end

---What a command did.
---@class prop.RunResult
---@field code integer its exit status
---@field stdout string
---@field stderr string

---A file's metadata (a final symlink is not followed).
---@class prop.Stat
---@field type "file"|"directory"|"link"|"other"
---@field mode integer permission bits
---@field uid integer
---@field gid integer
---@field owner string
---@field group string
---@field size integer
---@field target? string a link's target

---Options of `sys:write`.
---@class prop.WriteOptions
---@field mode? integer e.g. `tonumber("0644", 8)`
---@field owner? prop.Account
---@field group? prop.Account
---@field secret? boolean never print the content, in diffs or anywhere

---Options of `sys:mkdir` and `sys:chattr`.
---@class prop.AttrOptions
---@field mode? integer
---@field owner? prop.Account
---@field group? prop.Account

---The only handle a property has on its target at run time.  The same
---methods work on every transport (this machine, `connect.dir` trees,
---SSH).  Every write is a change; in a dry run a change is recorded, not
---made, and returns as if it had succeeded.
---@class prop.Sys
---@field host string the host's name
---@field os? prop.Family the host's OS family, as the site declares it
---@field suite? string from the host's os.* declaration ("bookworm")
---@field arch? string from the host's os.* declaration ("amd64")
---@field container? "chroot"|"nspawn"|"docker"|"jail" in a container, its kind
---@field transport string "local", "dir:/srv/tree", "ssh:root@web1:22"
---@field ports integer[] the ports the host's properties declare (ports=), increasing
---@field dry boolean a dry run
---@field cache table one per host per run, for recipes to share lookups
---@field facts prop.Facts what the target says about itself (gathered once per host, on first use)
local Sys = {}

---One network interface of `prop.Facts.interfaces`.
---@class prop.Interface
---@field name string
---@field ipv4 string[] addresses in CIDR form ("192.0.2.10/24")
---@field ipv6 string[]

---What the target says about itself at run time (`sys.facts`, and the
---argument of a content function of `file.has_content`): gathered once
---per host per run by one command through the transport, read-only.  A
---field that cannot be known is nil.  On a `connect.dir` tree only the
---`os_*` fields (from the tree's /etc/os-release) and `tree` are set.
---@class prop.Facts
---@field os_id? string os-release ID, lower case ("debian", "ubuntu")
---@field os_release? string os-release VERSION_ID ("12", "24.04")
---@field os_codename? string VERSION_CODENAME, else UBUNTU_CODENAME ("bookworm")
---@field os_name? string PRETTY_NAME, else NAME
---@field os_like? string[] ID_LIKE's words
---@field system? string uname -s ("Linux", "FreeBSD")
---@field kernel? string uname -r
---@field arch? string uname -m ("x86_64", "aarch64")
---@field dpkg_arch? string dpkg --print-architecture ("amd64"); nil without dpkg
---@field cpus? integer processors available (nproc)
---@field memory? integer total memory in bytes (MemTotal)
---@field hostname? string hostname(1)
---@field fqdn? string hostname -f, when it succeeds
---@field ipv4? string source address of the default IPv4 route (needs ip(8))
---@field ipv6? string source address of the default IPv6 route (needs ip(8))
---@field interfaces? table<string, prop.Interface> by name
---@field interface_names? string[] sorted
---@field onion? table<string, string> each tor onion service's address by its name ("web" -> "....onion")
---@field init? "systemd"|"sysv"|"rc.d" systemd when /run/systemd/system exists
---@field container? string the container the target runs in ("docker", "lxc", "systemd-nspawn", "chroot", ...); nil when none
---@field tree? true set on a connect.dir tree
---@field [string] any a fact the site defines with `fact "name" { ... }`

---Run a command that changes the target (no shell: argv is a list).
---An exit code not in `ok` (default `{ 0 }`) raises, failing the
---property with the command, its code and its stderr; `ok = "any"`
---returns every code.  Never run in a dry run (recorded instead).
---@param argv string[]
---@param opts? { stdin?: string, ok?: integer[]|"any" }
---@return prop.RunResult
function Sys:run(argv, opts) end

---Run a command that only looks; always executed, even in a dry run.
---Every exit code is returned unless `ok` is given.
---@param argv string[]
---@param opts? { stdin?: string, ok?: integer[]|"any" }
---@return prop.RunResult
function Sys:query(argv, opts) end

---Connect to a TCP port of the target as the target sees it (prop
---connects through the transport: over SSH a direct-tcpip channel, in a
---Docker container its network namespace), send `send`, and read the
---answer until the peer closes (`framing = "close"`), the first line has
---come (`"line"`) or one length-prefixed message has (`"len16"`, DNS over
---TCP); `"connect"` only connects (a TLS port) and answers "".  For
---probes: the request must change nothing.
---@param opts { port: integer, host?: string, send?: string, framing?: "close"|"line"|"len16"|"connect", timeout?: number, max?: integer }
---@return string? answer nil when there was none
---@return string? reason why there was none
function Sys:tcp(opts) end

---An HTTP/1.0 GET of `path` (default "/") on `port` (default 80) with
---`Host: name`, through sys:tcp.  Returns the status code, the headers
---(lower-case names) and the body; nil and the reason when no HTTP
---answer came.
---@param opts { port?: integer, name?: string, path?: string, host?: string, timeout?: number, max?: integer }
---@return integer? status
---@return table<string, string>|string headers, or the reason
---@return string? body
function Sys:http(opts) end

---A file's content, or nil when it is missing (other errors raise).
---@param path string
---@return string?
function Sys:read(path) end

---Write a file atomically.
---@param path string
---@param content string
---@param opts? prop.WriteOptions
---@return true
function Sys:write(path, content, opts) end

---A file's metadata, or nil when it is missing.
---@param path string
---@return prop.Stat?
function Sys:stat(path) end

---Remove a file, a link or an empty directory.
---@param path string
---@return true
function Sys:remove(path) end

---Make one directory (one level).
---@param path string
---@param opts? prop.AttrOptions
---@return true
function Sys:mkdir(path, opts) end

---Make `link` point at `target`, replacing `link` atomically.
---@param target string
---@param link string
---@return true
function Sys:symlink(target, link) end

---Change a file's mode, owner or group (by name or number).
---@param path string
---@param opts prop.AttrOptions
---@return true
function Sys:chattr(path, opts) end

---Whether a path exists.
---@param path string
---@return boolean
function Sys:exists(path) end

---A line shown under the property (e.g. what a command said).
---@param text string
function Sys:note(text) end

---What a hand-written property touches (all optional).
---@class prop.ClaimsSpec
---@field files? string[] absolute paths it owns whole
---@field lines? table<string, string|string[]> path -> lines it puts in that file
---@field packages? string[] packages it installs
---@field services? string[] services it runs
---@field users? string[] accounts it makes
---@field groups? string[] groups it makes

---The table `property { ... }` takes.
---@class prop.PropertySpec
---@field desc string what the property says
---@field targets? prop.Targets default "UnixLike"
---@field ports? integer[] ports it uses (1..65535)
---@field claims? prop.ClaimsSpec what it touches, for the pre-pass and `prop claims`
---@field info? table<string, string|number|boolean|(string|number|boolean)[]> facts for other hosts
---@field check? fun(sys: prop.Sys): boolean? already true?  Must only look.
---@field apply fun(sys: prop.Sys): (boolean|"ok"|nil) make it true; false or "ok": it changed nothing (even when it ran commands); anything else: changed
---@field revert? fun(sys: prop.Sys) undo it; makes the property revertable
---@field verify? fun(sys: prop.Sys): (boolean?, string?) its effect seen from outside, after apply and when check says ok; an error or false (with what it saw) fails the property.  Must only look.
---@field repair? fun(sys: prop.Sys) what makes the effect true again when verify finds it missing (then verify runs again: changed)
---@field probe_timeout? number seconds verify may keep asking for an effect that comes late (0..600, default 5)

---A fact the site defines: `fact "name" { cmd = {...} }` or
---`fact "name" { file = "/path" }`, with an optional `parse`.
---@class prop.FactDef
---@field cmd? string[] a read-only command run on the target (its stdout and stderr go to parse)
---@field file? string an absolute path read on the target (works on a connect.dir tree too)
---@field parse? fun(out: string, err: string): any the fact's value; without parse, the output trimmed

---Define a fact read from each target at run time, as `sys.facts.NAME`
---(and `facts.NAME` in content functions): run once per host per run, on
---first use, in a dry run too.  A command that fails or a parse that
---raises fails the properties that read it, naming the fact and its line.
---Declared at the site's top level; a built-in fact's name is refused.
---@param name string
---@return fun(def: prop.FactDef)
function fact(name) end

-- ---------------------------------------------------------------------
-- Hosts, combinators, property {}

---Declare a host: `host "name" { p1, p2, ... }` or `host("name", { ... })`.
---Nested lists are flattened; a nil entry is an error.  A function entry
---is a role: called with the host (prop.RoleHost), its properties take
---its place.
---@param name string
---@return fun(props: (prop.Property|fun(h: prop.RoleHost): prop.Property|prop.Property[])[]): prop.Host
---@overload fun(name: string, props: (prop.Property|fun(h: prop.RoleHost): prop.Property|prop.Property[])[]): prop.Host
function host(name) end

---The host a role is called with (read-only).
---@class prop.RoleHost
---@field name string
---@field os? prop.Family "debian", "buntish", "rhel", "fedora", "arch" or "freebsd"
---@field suite? string "bookworm", "14.1-RELEASE", ...
---@field arch? string
---@field info table<string, any> what the host's other entries declare
---@field properties prop.Property[] the list's properties (nested lists flattened, roles' results left out)

---A property written in Lua.
---@param spec prop.PropertySpec
---@return prop.Property
function property(spec) end

---`requires(a, b)` is `a:requires(b)`.
---@param a prop.Properties
---@param b prop.Properties
---@return prop.Property
function requires(a, b) end

---`before(a, b)` is `a:before(b)`.
---@param a prop.Properties
---@param b prop.Properties
---@return prop.Property
function before(a, b) end

---`on_change(a, b)` is `a:on_change(b)`.
---@param a prop.Properties
---@param b prop.Properties
---@return prop.Property
function on_change(a, b) end

---`fallback(a, b)` is `a:fallback(b)`.
---@param a prop.Properties
---@param b prop.Properties
---@return prop.Property
function fallback(a, b) end

---`describe(p, text)` is `p:describe(text)`.
---@param p prop.Properties
---@param text string
---@return prop.Property
function describe(p, text) end

---At run time, the first alternative whose targets include the host's OS.
---Targets ∪.
---@param ... prop.Properties
---@return prop.Property
function pick_os(...) end

---`a` normally, `b` when reverted (Propellor's `<!>`).  Revertable.
---@param a prop.Properties
---@param b prop.Properties
---@return prop.Property
function revertable(a, b) end

---`p`'s revert action; only for a revertable `p` (else error P001).
---@param p prop.Properties
---@return prop.Property
function revert(p) end

---`only_if(test, p)` is `p:only_if(test)`.
---@param test fun(sys: prop.Sys): boolean?
---@param p prop.Properties
---@return prop.Property
function only_if(test, p) end

---`tag(p, ...)` is `p:tag(...)`.
---@param p prop.Property
---@param ... string
---@return prop.Property
function tag(p, ...) end

---Each in order; a failed one does not stop the rest.  Targets ∩,
---revertable iff all are.  `props { a, b }` or `props(a, b)`.
---@param ... prop.Properties
---@return prop.Property
function props(...) end

---The site being evaluated.
site = {}

---Every host declared so far, in order.
---@return prop.Host[]
function site.hosts() end

---The bytes of a regular file beside the site (path relative to the
---site's directory; never outside it), read at evaluation time.
---@param path string "files/nginx.conf"
---@return string
function site.file(path) end

---Templates: `template(path, vars)` renders a file beside the site,
---`template.text(text, vars)` a string, in Jinja as Ansible renders it:
---{{ a.b | default("x") }}, {{ x if c else y }}, {% if a and b is defined %},
---{% elif %}/{% else %}/{% endif %}, {% for k, v in m.items() %}/{% endfor %},
---{% set x = e %}, tests (defined, none, version('1.2', '>=')...), filters
---(default, bool, int, join, indent, to_json...), {%- -%} whitespace
---control, trim_blocks.  An undefined name (outside `is defined` and
---`default`), an unknown filter or a bad expression is an error at the
---template's line and the caller's.  Compiled once per name and text.
---@overload fun(path: string, vars?: table): string
template = {}

---Render a template given as a string.
---@param text string
---@param vars? table
---@return string
function template.text(text, vars) end

---JSON text for content: json.encode(value, { indent = N }), json.quote(v),
---json.null, json.object{}.  A secret inside is quoted when it is revealed
---at run time; the result is then a secret.
json = {}

---The JSON text of value: a table with keys 1..n is an array, any other
---table an object (keys sorted; json.object{} for an empty one); strings,
---numbers, booleans, json.null and secrets.
---@param value any
---@param opts? { indent?: integer }
---@return string|prop.Secret
function json.encode(value, opts) end

---One string, number or secret as a JSON string, quotes included.
---@param v string|number|prop.Secret
---@return string|prop.Secret
function json.quote(v) end

---Marks t (or a new table) to be written as an object, even when empty.
---@param t? table
---@return table
function json.object(t) end

---JSON's null.
json.null = {}

---YAML for content: yaml.quote(v) is one double-quoted scalar.
yaml = {}

---One string, number or secret as a YAML double-quoted scalar, quotes
---included; a secret is quoted when it is revealed at run time.
---@param v string|number|prop.Secret
---@return string|prop.Secret
function yaml.quote(v) end

---Info: the host's IPv4 address.  `shared = true` on every host that
---holds it for an address held on purpose by several (floating, anycast).
---@param address string "192.0.2.10"
---@param opts? { shared?: boolean }
---@return prop.Property
function ipv4(address, opts) end

---Info: the host's IPv6 address.
---@param address string "2001:db8::10"
---@param opts? { shared?: boolean }
---@return prop.Property
function ipv6(address, opts) end

---Info: another DNS name of the host.
---@param name string "www.example.com"
---@return prop.Property
function alias(name) end

-- ---------------------------------------------------------------------
-- The OS declaration and how a host is reached

---prop's OS module (Lua's `os` library is not available in a site).
os = {}

---@alias prop.Arch "amd64"|"arm64"|"i386"|"armhf"|"armel"|"ppc64el"|"s390x"|"riscv64"

---Info: the host runs Debian.
---@param suite string "bookworm", "stable", ...
---@param arch prop.Arch
---@return prop.Property
function os.debian(suite, arch) end

---Info: the host runs Ubuntu (or another Debian derivative).
---@param release string "noble", "24.04", ...
---@param arch prop.Arch
---@return prop.Property
function os.buntish(release, arch) end

---Info: the host runs FreeBSD.
---@param release string "14.1-RELEASE"
---@param arch prop.Arch
---@return prop.Property
function os.freebsd(release, arch) end

---Info: the host runs Red Hat Enterprise Linux (the rhel family).
---@param release string|integer "9", "9.4", ...
---@param arch prop.Arch
---@return prop.Property
function os.rhel(release, arch) end

---Info: the host runs CentOS Stream (a RHEL rebuild: the rhel family).
---@param release string|integer "9", ...
---@param arch prop.Arch
---@return prop.Property
function os.centos(release, arch) end

---Info: the host runs Rocky Linux (a RHEL rebuild: the rhel family).
---@param release string|integer "9", "9.4", ...
---@param arch prop.Arch
---@return prop.Property
function os.rocky(release, arch) end

---Info: the host runs AlmaLinux (a RHEL rebuild: the rhel family).
---@param release string|integer "9", "9.4", ...
---@param arch prop.Arch
---@return prop.Property
function os.alma(release, arch) end

---Info: the host runs Fedora Linux.
---@param release string|integer "41", "rawhide", ...
---@param arch prop.Arch
---@return prop.Property
function os.fedora(release, arch) end

---Info: the host runs Arch Linux (rolling: no release; its suite is "rolling").
---@param arch prop.Arch
---@return prop.Property
function os.arch(arch) end

---How a host is reached: info properties.
connect = {}

---@class prop.SshOptions
---@field address? string default: the host's name
---@field port? integer default 22
---@field user? string default "root"
---@field identity? string a private key file; default: the agent, then the default keys
---@field known_hosts? string default "~/.ssh/known_hosts"
---@field sudo? boolean run commands through sudo; default false

---Reach the host over SSH; host keys are always checked.
---@param opts? prop.SshOptions
---@return prop.Property
function connect.ssh(opts) end

---Reach the host as this machine (also the host name "localhost").
---@return prop.Property
connect["local"] = function() end

---The same as `connect["local"]()`.
---@return prop.Property
function connect.localhost() end

---The host is a directory tree on this machine, every path under `path`
---(file properties only; commands run through chroot when prop is root).
---@param path string absolute
---@return prop.Property
function connect.dir(path) end

-- ---------------------------------------------------------------------
-- Recipes

file = {}

---@class prop.FileOptions
---@field mode? prop.Mode
---@field owner? prop.Account
---@field group? prop.Account

---@class prop.ContentOptions: prop.FileOptions
---@field secret? boolean keep the content out of every output
---@field shared? boolean secret content readable by group or others on purpose (no W108)
---@field hardlinks? boolean in a tree, set mode/owner on a file with several hard links too
---@field replace? boolean false: write the file only when it is missing (Ansible's force: no)
---@field validate? string[] argv with "%s" (a copy of the new content beside the file); written only when it exits 0

---UnixLike.  The file has exactly this content.  Claims path = content.
---content may be a function of the host's facts, called at run time
---(dry runs too); the path is claimed as generated by that function.
---Content from the secret store is written 0600 unless mode is given.
---`replace = false` leaves an existing file's content alone; `validate`
---checks new content before it is written.
---@param path string absolute
---@param content prop.Content|fun(facts: prop.Facts): prop.Content
---@param opts? prop.ContentOptions
---@return prop.Property
function file.has_content(path, content, opts) end

---@class prop.FragmentsOptions: prop.FileOptions
---@field header? string|string[] text put first, such as "# managed by prop"
---@field validate? string[] argv with "%s" (a copy of the assembled text beside the file); written only when it exits 0

---UnixLike, revertable (its revert removes the file).  The file is its
---header, then the text of each `file.fragment` of path on the host,
---sorted by order (default 50), then name; rebuilt at each run from what
---the site says (a fragment left out of the site leaves the file).
---Claims file.fragments path.
---@param path string absolute
---@param opts? prop.FragmentsOptions
---@return prop.Property
function file.fragments(path, opts) end

---UnixLike, not revertable.  One part of the file `file.fragments(path)`
---assembles (P012 without one); one name is one text and order (P007).
---At run time it makes the whole file what file.fragments assembles.
---@param path string absolute
---@param name string no newline
---@param text string|string[] ends with a newline in the file
---@param opts? { order?: integer } default 50: sorted by order, then name
---@return prop.Property
function file.fragment(path, name, text, opts) end

---UnixLike.  The file exists: made empty when missing, its content never
---changed; mode/owner/group set when given.  A converged touch changes
---nothing (the file's times are left alone).
---@param path string absolute
---@param opts? { mode?: prop.Mode, owner?: prop.Account, group?: prop.Account, hardlinks?: boolean }
---@return prop.Property
function file.touched(path, opts) end

---UnixLike, revertable (its revert is `file.lacks_lines`).  Each line is
---in the file; other lines are kept.
---@param path string absolute
---@param lines string[]
---@return prop.Property
function file.contains_lines(path, lines) end

---UnixLike, revertable (its revert is `file.contains_lines`).  No line of
---the file equals one of these.
---@param path string absolute
---@param lines string[]
---@return prop.Property
function file.lacks_lines(path, lines) end

---UnixLike, revertable (its revert is `file.line_absent`).  Ansible's
---lineinfile: the last line `match` (a Lua pattern), `regex` (a POSIX
---extended regular expression) or `match_plain` finds becomes `line`; else, unless the line is there, it is inserted after the
---last line `after` finds, before the first line `before` finds, or at the
---end.  `validate` is an argv with "%s", run on the new content first.
---@param path string absolute
---@param line string
---@param opts? { match?: string, regex?: string, match_plain?: string, after?: string, before?: string, validate?: string[], create?: boolean }
---@return prop.Property
function file.line(path, line, opts) end

---UnixLike, revertable (its revert is `file.line`).  Every line `match`,
---`regex` or `match_plain` finds (or equal to `line`) is removed.  Without
---`line` (the options second) it is not revertable.
---@param path string absolute
---@param line string|{ match?: string, regex?: string, match_plain?: string, validate?: string[] }
---@param opts? { match?: string, regex?: string, match_plain?: string, validate?: string[] }
---@return prop.Property
function file.line_absent(path, line, opts) end

---UnixLike.  The path is a directory.  `recurse = true`: every entry
---below gets mode/owner/group too (symlinks not followed).
---`purge = true`: every entry directly in it that no property of the host
---claims is removed at run time (a subdirectory holding a claimed path is
---kept whole); not revertable; a system directory is refused (P012).
---@param path string absolute
---@param opts? { mode?: prop.Mode, owner?: prop.Account, group?: prop.Account, recurse?: boolean, hardlinks?: boolean, purge?: boolean }
---@return prop.Property
function file.directory(path, opts) end

---UnixLike.  Nothing exists at the path.
---@param path string absolute
---@return prop.Property
function file.absent(path) end

---UnixLike.  `link` is a symbolic link to `target`.
---@param link string absolute
---@param target string
---@return prop.Property
function file.symlink(link, target) end

---UnixLike.  The file's mode.  In a tree (chroot, connect.dir) a regular
---file with more than one hard link is refused unless `hardlinks = true`.
---`recurse = true`: every entry below a directory too (directories get x
---where they have r; symlinks not followed).
---@param path string absolute
---@param mode prop.Mode
---@param opts? { hardlinks?: boolean, recurse?: boolean }
---@return prop.Property
function file.mode(path, mode, opts) end

---UnixLike.  The file's owner (and group, when given).  In a tree a
---regular file with more than one hard link is refused unless
---`hardlinks = true`.  `recurse = true`: every entry below a directory
---too (symlinks not followed).
---@param path string absolute
---@param user prop.Account
---@param group? prop.Account|{ hardlinks?: boolean, recurse?: boolean }
---@param opts? { hardlinks?: boolean, recurse?: boolean }
---@return prop.Property
function file.owner(path, user, group, opts) end

---@class prop.DownloadOptions
---@field sha256 string the file's SHA-256, 64 hex digits (required)
---@field owner? prop.Account
---@field group? prop.Account
---@field mode? prop.Mode default "0644"

---UnixLike, not revertable.  The file at `path` is what `url` (http,
---https, ftp) serves, with that SHA-256: fetched by the target (curl,
---else wget) into a temporary file beside `path`, checked there and
---renamed into place; fetched here and sent when the target cannot.  A
---checksum that does not match writes nothing.
---@param path string absolute
---@param url string
---@param opts prop.DownloadOptions
---@return prop.Property
function file.downloaded(path, url, opts) end

archive = {}

---@class prop.ArchiveOptions
---@field strip? integer leading path components dropped from each entry
---@field owner? prop.Account owner of everything extracted (default: prop's user)
---@field group? prop.Account
---@field creates? string absolute: when it exists on the target, nothing is read or written
---@field exclude? string|string[] globs (fnmatch, "*" matches "/") of entries left out

---UnixLike, not revertable.  A tar (gzip, bzip2, xz, zstd) or zip
---archive extracted into `dest`, read by prop itself (the target needs no
---tar): only the entries that differ from the target are written.
---`src`: a file beside the site ("files/app.tar.gz", read when the site
---is), an absolute path on the target, or a `file.downloaded` property.
---@param dest string absolute
---@param src string|prop.Property
---@param opts? prop.ArchiveOptions
---@return prop.Property
function archive.extracted(dest, src, opts) end

apt = {}

---DebianLike, revertable (its revert is `apt.removed`).  Claims each
---package installed.  `apt.installed { "a", "b" }` or `apt.installed "a"`.
---Recommended packages are installed too.
---@param pkgs string|string[]
---@return prop.Property
function apt.installed(pkgs) end

---As `apt.installed`, without recommended packages (--no-install-recommends).
---@param pkgs string|string[]
---@return prop.Property
function apt.installed_min(pkgs) end

---DebianLike, revertable (its revert is `apt.installed`).
---@param pkgs string|string[]
---@return prop.Property
function apt.removed(pkgs) end

---DebianLike.  Refresh the package lists (apt-get update).
---@return prop.Property
function apt.update() end

---DebianLike.  Every installed package at its newest version.
---@return prop.Property
function apt.upgraded() end

---DebianLike.  The standard /etc/apt/sources.list for the host's suite.
---@param mirror? string|{ mirror?: string } an http(s) URL
---@return prop.Property
function apt.std_sources_list(mirror) end

---DebianLike, revertable (the revert removes the file).  An armored
---OpenPGP public key written to /etc/apt/keyrings/NAME.asc, for the
---sources whose `signed_by` names it; checked when the site is read.
---@param name string letters, digits, "_", "-", "."
---@param armored string gpg --armor --export
---@return prop.Property
function apt.key(name, armored) end

---@class prop.AptSource
---@field uris string|string[]
---@field suites string|string[] "./" for a flat repository
---@field components? string|string[] required unless the repository is flat
---@field types? string|string[] "deb" (default) or "deb-src"
---@field signed_by? string an `apt.key` name or an absolute path
---@field architectures? string|string[]
---@field languages? string|string[]
---@field trusted? boolean
---@field enabled? boolean
---@field check_valid_until? boolean

---DebianLike, revertable (the revert removes the file).  A deb822 source,
---/etc/apt/sources.list.d/NAME.sources.  Chain `:on_change(apt.update())`.
---@param name string
---@param fields prop.AptSource
---@return prop.Property
function apt.sources(name, fields) end

---DebianLike, not revertable.  /etc/apt/sources.list.d holds only the
---sources the host declares: every other entry is removed at run time
---(debian.sources / ubuntu.sources stay unless apt.std_sources_list is
---declared; a package's files stay).  Chain `:on_change(apt.update())`.
---@return prop.Property
function apt.sources_purged() end

---DebianLike, revertable.  /etc/apt/preferences.d/prop-PKG-RELEASE.pref:
---one package pinned to one release twice with two priorities is P007.
---@param pkg string
---@param release string codename (n=), archive name (a=) or "o=...,a=..." terms
---@param priority integer -32768..32767, not 0
---@return prop.Property
function apt.pinned(pkg, release, priority) end

---DebianLike, revertable (the revert writes "0"s).  unattended-upgrades
---installed and /etc/apt/apt.conf.d/20auto-upgrades turned on; origins
---(replacing the package's list) and mail in 51prop-unattended-upgrades.
---@param opts? { origins?: string[], mail?: string }
---@return prop.Property
function apt.unattended_upgrades(opts) end

---DebianLike.  debconf answers { question, type, value } set, then
---`dpkg-reconfigure -fnoninteractive pkg`, only when one differs.
---@param pkg string
---@param selections { [1]: string, [2]: string, [3]: string|boolean }[]
---@return prop.Property
function apt.reconfigured(pkg, selections) end

---DebianLike.  apt-get clean when packages were downloaded.
---@return prop.Property
function apt.cache_cleaned() end

---DebianLike, revertable (its revert is `apt.removed`).  The package
---installed and its service of the same name running.
---@param pkg string
---@return prop.Property
function apt.service_installed_running(pkg) end

dnf = {}

---Options of the dnf recipes: work on the tree at installroot (as with
---dnf's --installroot), --releasever from releasever or the host's release.
---@class prop.DnfOptions
---@field installroot? string absolute path on the target
---@field releasever? string

---RedHatLike, revertable (its revert is `dnf.removed`).  Claims each
---package installed.  `dnf.installed { "httpd", "mod_ssl" }`,
---`dnf.installed { "httpd", installroot = "/srv/img" }`.
---@param pkgs string|string[]
---@param opts? prop.DnfOptions
---@return prop.Property
function dnf.installed(pkgs, opts) end

---RedHatLike, revertable (its revert is `dnf.installed`).
---@param pkgs string|string[]
---@param opts? prop.DnfOptions
---@return prop.Property
function dnf.removed(pkgs, opts) end

---RedHatLike.  Refresh the repository metadata (dnf makecache).
---@param opts? prop.DnfOptions
---@return prop.Property
function dnf.update(opts) end

---RedHatLike.  Every package at its newest version (dnf upgrade).
---@param opts? prop.DnfOptions
---@return prop.Property
function dnf.upgraded(opts) end

pacman = {}

---Options of the pacman recipes: the tree at root (pacman --root) and
---another pacman.conf (pacman --config).
---@class prop.PacmanOptions
---@field root? string absolute path on the target
---@field config? string absolute path of a pacman.conf on the target

---ArchLinux, revertable (its revert is `pacman.removed`).  Claims each
---package installed.
---@param pkgs string|string[]
---@param opts? prop.PacmanOptions
---@return prop.Property
function pacman.installed(pkgs, opts) end

---ArchLinux, revertable (its revert is `pacman.installed`).
---@param pkgs string|string[]
---@param opts? prop.PacmanOptions
---@return prop.Property
function pacman.removed(pkgs, opts) end

---ArchLinux.  pacman -Sy, then -Su when something is newer.
---@param opts? prop.PacmanOptions
---@return prop.Property
function pacman.upgraded(opts) end

pkg = {}

---FreeBSD, revertable (its revert is `pkg.removed`).
---@param pkgs string|string[] names or origins ("www/nginx")
---@return prop.Property
function pkg.installed(pkgs) end

---FreeBSD, revertable (its revert is `pkg.installed`).
---@param pkgs string|string[]
---@return prop.Property
function pkg.removed(pkgs) end

---FreeBSD.  pkg update, then pkg upgrade.
---@return prop.Property
function pkg.upgraded() end

---FreeBSD.  pkg update, at most once per host and run; ok when the
---catalogue was up to date.
---@return prop.Property
function pkg.updated() end

packages = {}

---UnixLike, revertable (its revert is `packages.removed`):
---`pick_os(apt.installed(pkgs), dnf.installed(pkgs), pacman.installed(pkgs),
---pkg.installed(pkgs))`.  Names shared by every OS ("git", "rsync").
---@param pkgs string|string[]
---@return prop.Property
function packages.installed(pkgs) end

---UnixLike, revertable (its revert is `packages.installed`): the `removed`
---recipes of apt, dnf, pacman and pkg in a `pick_os`.
---@param pkgs string|string[]
---@return prop.Property
function packages.removed(pkgs) end

---`pick_os(apt.upgraded(), dnf.upgraded(), pacman.upgraded(), pkg.upgraded())`:
---the host's OS picks the package manager.
---@return prop.Property
function packages.upgraded() end

service = {}

---UnixLike, revertable (its revert is `service.stopped`).
---@param name string
---@return prop.Property
function service.running(name) end

---UnixLike, revertable (its revert is `service.running`).
---@param name string
---@return prop.Property
function service.stopped(name) end

---UnixLike.  Restarts the service each time it runs; meant for
---`on_change`.
---@param name string
---@return prop.Property
function service.restarted(name) end

---UnixLike.  Reloads the service (systemctl reload) each time it runs,
---when it runs; meant for `on_change`.  A service that cannot reload fails.
---@param name string
---@return prop.Property
function service.reloaded(name) end

---UnixLike.  The service starts at boot.
---@param name string
---@return prop.Property
function service.enabled(name) end

systemd = {}

---A systemd-nspawn machine called name running os, whose properties are props.
---@param name string
---@param os prop.Property os.debian(...) or os.buntish(...)
---@param props prop.Property[]
---@param opts? { path?: string, include?: string[], variant?: string, mirror?: string, cache?: string, tarball?: string }
---@return prop.Host
function systemd.container(name, os, props, opts) end

---DebianLike, revertable.  Makes the machine c and runs it.
---@param c prop.Host
---@param opts? { start?: boolean }
---@return prop.Property
function systemd.nspawned(c, opts) end

---A property of a systemd.container: the parent's host_port forwarded to container_port.
---@param host_port integer
---@param container_port integer
---@param opts? { protocol?: "tcp"|"udp" }
---@return prop.Property
function systemd.publish(host_port, container_port, opts) end

---A property of a systemd.container: the parent's directory path mounted in it.
---@param path string
---@param container_path? string
---@param opts? { readonly?: boolean }
---@return prop.Property
function systemd.bind(path, container_path, opts) end

---A property of a systemd.container: a network of its own with loopback only.
---@return prop.Property
function systemd.private_network() end

---Linux, revertable (the revert removes the file).  Writes
---/etc/systemd/system/NAME after `systemd-analyze verify` accepts it (a
---refusal fails and keeps the old file); daemon-reload only on a change.
---@param name string a unit name with its type: "backup.service"
---@param content string the unit file
---@return prop.Property
function systemd.unit(name, content) end

---Linux, revertable (the revert disables it).  `systemctl enable`
---unless is-enabled says so.  A name without a type is a service.
---@param unit string
---@return prop.Property
function systemd.enabled(unit) end

---Linux, revertable (the revert stops it).  `systemctl start` unless
---active; ok with a note where no systemd runs (a chroot).
---@param unit string
---@return prop.Property
function systemd.started(unit) end

---Linux, revertable (the revert unmasks it).  /etc/systemd/system/UNIT
---a link to /dev/null; conflicts (P007) with a systemd.unit or
---systemd.enabled of the same unit.
---@param unit string
---@return prop.Property
function systemd.masked(unit) end

---Linux, revertable.  Storage=persistent in
---/etc/systemd/journald.conf.d/50-prop-persistent.conf; journald restarted
---on a change.
---@return prop.Property
function systemd.journald_persistent() end

---Linux, revertable.  journald.conf's [Journal] settings in
---/etc/systemd/journald.conf.d/60-prop.conf (give them all in one call);
---journald restarted on a change.
---@param settings table<string, string|integer|boolean> such as { SystemMaxUse = "500M", Compress = true }
---@return prop.Property
function systemd.journald_configured(settings) end

user = {}

---@class prop.AccountOptions
---@field uid? integer
---@field gid? integer
---@field shell? string absolute
---@field home? string absolute
---@field groups? string[] supplementary groups
---@field comment? string the GECOS field
---@field password? any secret "name" from the site's store (Linux), or "*" for no password (locked)
---@field only_if_unset? boolean set the password only while the account has none
---@field locked? boolean lock (true) or unlock (false) the password, as user.locked

---UnixLike, revertable (its revert is `user.absent`).  Claims the name
---and uid: two accounts with one uid are error P010.
---@param name string
---@param opts? prop.AccountOptions
---@return prop.Property
function user.account(name, opts) end

---UnixLike, revertable (its revert is `user.account(name)`).  The home
---directory is kept.
---@param name string
---@return prop.Property
function user.absent(name) end

---UnixLike.  The account's login shell (which must exist on the target).
---Claims the attribute: two shells for one account are P010.
---@param name string
---@param shell string absolute
---@return prop.Property
function user.shell(name, shell) end

---UnixLike, revertable (unlocked).  The account's password is locked.
---@param name string
---@return prop.Property
function user.locked(name) end

---UnixLike, revertable (removed from the group).  The account is a member
---of the group.
---@param name string
---@param group string
---@return prop.Property
function user.has_group(name, group) end

---UnixLike, revertable (its revert is `user.absent`).  A system account:
---no login shell and no home by default.
---@param name string
---@param opts? { uid?: integer, shell?: string, home?: string, comment?: string }
---@return prop.Property
function user.system_account(name, opts) end

group = {}

---UnixLike.  Claims the name and gid.
---@param name string
---@param opts? { gid?: integer }
---@return prop.Property
function group.exists(name, opts) end

cron = {}

---UnixLike, revertable (its revert removes the job).  /etc/cron.d/NAME.
---@param name string letters, digits, _ and -
---@param schedule string five fields ("*/5 * * * *") or an @-word ("@daily")
---@param argv string[] the command, without a shell
---@param opts? { user?: string } default "root"
---@return prop.Property
function cron.job(name, schedule, argv, opts) end

---UnixLike, revertable.  /etc/cron.d/NAME running command (a shell
---command line) as user in cwd, under nice -n 10 and ionice -c 3.
---@param name string
---@param schedule string
---@param user string
---@param cwd string absolute
---@param command string
---@return prop.Property
function cron.nice_job(name, schedule, user, cwd, command) end

---UnixLike, not revertable.  /etc/cron.d holds only the jobs the host
---declares: every other entry is removed at run time (a package's files
---stay).
---@return prop.Property
function cron.purged() end

cmd = {}

---UnixLike.  Run a command (no shell).
---@param argv string[]
---@param opts? { creates?: string, unless?: string[] } skip when the path exists, or when `unless` exits 0
---@return prop.Property
function cmd.run(argv, opts) end

hostname = {}

---UnixLike.  The host's name (/etc/hostname, /etc/hosts; rc.conf on
---FreeBSD).
---@param name string
---@return prop.Property
function hostname.set(name) end

---UnixLike.  The host's own name from the site set as hostname.set
---does, and as /etc/mailname: the full name ("fqdn", the default), its
---domain part ("domain"), or left alone (false).
---@param opts? { mailname?: "fqdn"|"domain"|false }
---@return prop.Property
function hostname.sane(opts) end

---DebianLike.  /etc/mailname.
---@param name string
---@return prop.Property
function hostname.mailname(name) end

---UnixLike, revertable.  "search DOMAIN" in /etc/resolv.conf (domain
---lines go); a resolv.conf linked into /run fails.  Two domains on a
---host is error P007.
---@param domain string
---@return prop.Property
function hostname.search_domain(domain) end

kernel = {}

---DebianLike, revertable.  /etc/modules-load.d/NAME.conf, and modprobe
---NAME unless /sys/module/NAME exists (not in a container or a
---connect.dir tree).  The revert removes the file and runs modprobe -r.
---@param name string "br_netfilter"
---@return prop.Property
function kernel.module_loaded(name) end

grub = {}

---DebianLike, revertable.  GRUB_CMDLINE_LINUX_DEFAULT="ARGS" in
---/etc/default/grub, then update-grub (on_change).  Two values on a host
---is error P007.
---@param args string|string[] "quiet splash" or { "quiet", "console=ttyS0" }
---@return prop.Property
function grub.cmdline_default(args) end

---DebianLike, revertable.  NAME=VALUE in /etc/default/grub (any variable
---but the two command lines), then update-grub (on_change).
---@param name string "GRUB_TIMEOUT"
---@param value string|integer
---@return prop.Property
function grub.setting(name, value) end

---DebianLike, revertable.  One word added to GRUB_CMDLINE_LINUX, the
---others kept; update-grub (on_change).
---@param word string "console=ttyS0,115200"
---@return prop.Property
function grub.cmdline_word(word) end

---DebianLike, revertable.  One word removed from GRUB_CMDLINE_LINUX, the
---others kept; update-grub (on_change).
---@param word string "quiet"
---@return prop.Property
function grub.cmdline_word_absent(word) end

mount = {}

---UnixLike, revertable.  The line of /etc/fstab for mount point dir,
---edited in place or appended.  Two entries for one mount point is
---error P007.
---@param src string "/dev/sdb1", "UUID=...", "server:/export", "tmpfs"
---@param dir string absolute mount point
---@param fstype string "ext4", "nfs", "tmpfs"
---@param opts? string|string[] "defaults" by default
---@param more? { dump?: integer, pass?: integer }
---@return prop.Property
function mount.fstab_entry(src, dir, fstype, opts, more) end

---UnixLike, revertable.  The fstab entry, and mounted with mount -t
---FSTYPE -o OPTS SRC DIR unless dir is a mount point already; another
---file system there fails.  The revert unmounts and removes the line.
---@param src string
---@param dir string absolute mount point
---@param fstype string
---@param opts? string|string[]
---@param more? { dump?: integer, pass?: integer }
---@return prop.Property
function mount.mounted(src, dir, fstype, opts, more) end

git = {}

---UnixLike, not revertable.  A clone of url in dir (cloned when missing
---or empty; another repository or a non-repository there fails), at rev
---when given (a branch followed on the remote, a tag or a commit;
---fetched and checked out when HEAD differs).  Git runs as user when
---given.  Two URLs for one dir is error P007.
---@param url string
---@param dir string absolute
---@param opts? { rev?: string, branch?: string, user?: string }
---@return prop.Property
function git.cloned(url, dir, opts) end

---UnixLike, not revertable.  git pull --ff-only when the remote branch
---the checked-out branch follows has moved past HEAD.
---@param dir string absolute, a clone
---@param opts? { user?: string }
---@return prop.Property
function git.pulled(dir, opts) end

sysctl = {}

---DebianLike, revertable.  A line of /etc/sysctl.d/60-prop.conf, applied
---with sysctl -w when the running value differs (never in a container).
---One key given two values is error P007.
---@param key string dotted ("vm.swappiness")
---@param value string|integer
---@return prop.Property
function sysctl.set(key, value) end

timezone = {}

---DebianLike or FreeBSD.  /etc/timezone and the /etc/localtime link (a
---copy on FreeBSD); the zone must exist in the target.
---@param zone string "Europe/Paris", "UTC"
---@return prop.Property
function timezone.set(zone) end

locale = {}

---DebianLike, revertable.  Enabled in /etc/locale.gen and generated.
---@param locale string with its codeset: "en_US.UTF-8"
---@return prop.Property
function locale.available(locale) end

---DebianLike, revertable.  LANG in /etc/default/locale (two selections
---on a host are error P007); requires locale.available.
---@param locale string with its codeset: "en_US.UTF-8"
---@return prop.Property
function locale.selected(locale) end

pull = {}

---UnixLike, revertable (the revert removes the timer or the cron job).
---Installs prop's own timer running `prop pull REPO` on the host: a
---systemd timer and oneshot service (/etc/systemd/system/prop-pull.*)
---where systemd runs, else /etc/cron.d/prop-pull under flock.
---@param repo string the git repository (URL or path)
---@param opts? { every?: string, jitter?: string|0, timeout?: string, branch?: string, host?: string, site?: string, keyring?: string[], state_dir?: string, prop?: string, via?: "systemd"|"cron" } every "30m", jitter "5m", timeout "1h" by default; prop "/usr/local/bin/prop"
---@return prop.Property
function pull.scheduled(repo, opts) end

apache = {}

---DebianLike, port 80 (shared with Apache's sites).  Installs apache2.  `purge_sites = true`:
---/etc/apache2/sites-enabled holds only the sites the host declares (the
---rest removed, the configuration tested, apache reloaded only when
---something was removed).
---@param opts? { purge_sites?: boolean }
---@return prop.Property
function apache.installed(opts) end

---DebianLike, revertable (to apache.site_disabled).  sites-available/NAME.conf
---and its sites-enabled link; apachectl configtest before the reload, and
---a configuration Apache refuses is put back as it was.  Claims web.name
---NAME:PORT for each ServerName/ServerAlias and <VirtualHost *:PORT>,
---web.default PORT for _default_:PORT (two sites of one name and port:
---P017); declares those ports and its Listen lines' (shared with Apache's
---sites).  A text prop cannot read (Include, Use, a variable, no
---VirtualHost) is W110.
---@param name string without ".conf": "example.org"
---@param content string the VirtualHost blocks
---@return prop.Property
function apache.site(name, content) end

---DebianLike.  sites-enabled/NAME.conf removed (the file in
---sites-available kept), tested, reloaded.
---@param name string without ".conf": "000-default"
---@return prop.Property
function apache.site_disabled(name) end

---DebianLike, revertable (a2dismod).  a2enmod NAME, tested with
---apachectl configtest (a2dismod again when refused), then a restart.
---@param name string "rewrite", "headers", "proxy_http"
---@return prop.Property
function apache.module(name) end

---DebianLike.  /etc/apache2/ports.conf with one Listen line per port,
---tested, reloaded; declares the ports (shared with apache.installed and
---Apache's sites).
---@param ports integer[] { 80, 8080 }
---@return prop.Property
function apache.listen_ports(ports) end

ssh = {}

---Info: the host's public key of that type, for other hosts' ssh.known_hosts.
---@param type "ed25519"|"rsa"|"ecdsa"|"dsa"
---@param public string "ssh-ed25519 AAAA..."
---@return prop.Property
function ssh.host_key(type, public) end

---DebianLike.  Each key pair in /etc/ssh: the public key given, the private
---key from the secret ssh_host_TYPE_key of the site's store; ssh restarted
---when one changed.
---@param keys table<"ed25519"|"rsa"|"ecdsa"|"dsa", string>
---@return prop.Property
function ssh.host_keys(keys) end

---UnixLike.  user's known_hosts lists every host of the site that declares
---a key, under its names and addresses.
---@param user string
---@param opts? { path?: string, group?: string }
---@return prop.Property
function ssh.known_hosts(user, opts) end

---UnixLike, revertable (removes exactly these lines).  The keys in
---~USER/.ssh/authorized_keys (0600, directory 0700), other lines kept.
---`exact = true`: no key but those every ssh.authorized_keys of the user
---on the host lists (the others removed, named by comment and
---fingerprint).
---@param user string
---@param keys string|string[] "ssh-ed25519 AAAA... comment"
---@param opts? { exact?: boolean }
---@return prop.Property
function ssh.authorized_keys(user, keys, opts) end

---DebianLike.  The host keys removed and made anew by ssh-keygen -A, once
---(marker /etc/ssh/.prop-host-keys-regenerated); ssh restarted.
---@return prop.Property
function ssh.host_keys_regenerated() end

---UnixLike.  ~USER/.ssh/id_TYPE (0600) from a secret and id_TYPE.pub (0644),
---owned by the user; verified with ssh-keygen -y on the target.
---@param user string
---@param type "ed25519"|"rsa"|"ecdsa"|"dsa"
---@param keys { private: any, public: string } private: secret "name"
---@return prop.Property
function ssh.user_keypair(user, type, keys) end

---UnixLike.  One "Key value" line of /etc/ssh/sshd_config per setting
---(Match blocks left alone), checked with sshd -t before it replaces the
---file; sshd reloaded.
---@param settings table<string, string|integer|boolean>
---@return prop.Property
function ssh.sshd_config(settings) end

---UnixLike.  ssh.sshd_config { PasswordAuthentication = "yes"|"no" }.
---@param allowed boolean
---@return prop.Property
function ssh.password_authentication(allowed) end

---UnixLike.  ssh.sshd_config { Port = port }; declares the port.
---@param port integer
---@return prop.Property
function ssh.listen_port(port) end

sudo = {}

---DebianLike, revertable.  /etc/sudoers.d/prop-USER, checked with visudo
----cf before it is installed.
---@param user string
---@param opts? { nopasswd?: boolean, commands?: string[] }
---@return prop.Property
function sudo.enabled_for(user, opts) end

---DebianLike, not revertable.  /etc/sudoers.d holds only the rules the
---host declares: every other entry is removed at run time (a package's
---files, Debian's README, stay).
---@return prop.Property
function sudo.rules_purged() end

conffile = {}

---UnixLike, revertable.  The line "KEY<sep>VALUE" of a flat configuration
---file; other lines kept.  One key given two values on a host is P007.
---@param path string
---@param key string
---@param value string|integer|boolean
---@param opts? { sep?: " = "|"="|" ", comment?: string }
---@return prop.Property
function conffile.key_value(path, key, value, opts) end

---UnixLike, revertable.  key = value in [section] of an INI file.
---@param path string
---@param section string
---@param key string
---@param value string|integer|boolean
---@param opts? { sep?: " = "|"=" }
---@return prop.Property
function conffile.ini_setting(path, section, key, value, opts) end

dns = {}

---@class prop.Soa
---@field ns? string
---@field email? string
---@field ttl? integer
---@field refresh? integer
---@field retry? integer
---@field expire? integer
---@field minimum? integer

---A record of a zone: { name, type, fields... }, name "@" or in the zone:
---{ "www", "CNAME", "web1.example.com." }, { "@", "MX", 10, "mail.example.com." },
---{ "_sip._tcp", "SRV", 10, 5, 5060, "sip.example.com." }, { "@", "TXT", "v=spf1 -all" },
---{ "@", "CAA", 0, "issue", "letsencrypt.org" }; or the fields as one string
---{ "@", "MX", "10 mail.example.com." }.
---@alias prop.DnsRecord (string|integer)[]

---DebianLike, port 53 (bind9); revertable (the zone's files, stanza,
---include line and keys removed, named told; bind9 stays).  A primary
---zone: A/AAAA of the site's hosts in it, CNAMEs of their aliases, NS and
---the records given (typed MX, SRV, TXT, CAA...: P012 when malformed, and
---an MX, SRV or CNAME target in a zone of the site must have an address in
---it); checked with named-checkzone and named-checkconf before bind
---reloads.  dnssec = true signs it (dnssec-policy default, inline
---signing, keys in /var/lib/bind/keys/ZONE); each run notes the DS record
---for the parent.
---@param zone string "example.com"
---@param opts { soa?: prop.Soa, ns: string[], records?: prop.DnsRecord[], dnssec?: boolean }
---@return prop.Property
function dns.primary(zone, opts) end

---DebianLike, port 53 (bind9); revertable.  A secondary zone taken from
---masters: addresses, or names of hosts of the site (their ipv4/ipv6;
---P012 when not in the site or without an address).
---@param zone string
---@param masters string[] addresses or host names
---@return prop.Property
function dns.secondary(zone, masters) end

chroot = {}

---A chroot made with debootstrap at path, running os, with props inside.
---@param path string
---@param os prop.Property os.debian(...) or os.buntish(...)
---@param props prop.Property[]
---@param opts? { variant?: string, mirror?: string, include?: string[], cache?: string, name?: string }
---@return prop.Host
function chroot.debootstrapped(path, os, props, opts) end

---A chroot unpacked from a tarball at path.
---@param path string
---@param os prop.Property
---@param tarball string
---@param props prop.Property[]
---@param opts? { name?: string }
---@return prop.Host
function chroot.from_tarball(path, os, tarball, props, opts) end

---Makes the chroot c on its host, then runs its properties inside.
---@param c prop.Host
---@return prop.Property
function chroot.provisioned(c) end

docker = {}

---An image made from the rootfs cache (debootstrap, then docker import).
---@param name string
---@param os prop.Property
---@param opts? { mirror?: string, cache?: string }
---@return table
function docker.image(name, os, opts) end

---A Docker container running image (docker.image(...) or a name to pull).
---@param name string
---@param image table|string
---@param props prop.Property[]
---@return prop.Host
function docker.container(name, image, props) end

---A run parameter (docker run -p): the parent's host_port reaches container_port.
---@param host_port integer
---@param container_port integer
---@param opts? { address?: string }
---@return prop.Property
function docker.publish(host_port, container_port, opts) end

---A run parameter (docker run -v).
---@param host_path string
---@param container_path string
---@return prop.Property
function docker.volume(host_path, container_path) end

---A run parameter (docker run -e); not a secret.
---@param name string
---@param value string
---@return prop.Property
function docker.env(name, value) end

---A run parameter (docker run --cap-add): "NET_ADMIN", "SYS_TIME", ...
---@param capability string
---@return prop.Property
function docker.cap_add(capability) end

---UnixLike, revertable.  The container c runs on its host, made or
---remade when its image or parameters changed; then provisioned inside.
---@param c prop.Host
---@return prop.Property
function docker.running(c) end

---UnixLike.  Stopped containers, dangling images, unused volumes pruned
---(those asked for), limited to a label when given; ok: nothing to prune.
---@param opts { containers?: boolean, images?: boolean, volumes?: boolean, label?: string }
---@return prop.Property
function docker.pruned(opts) end

jail = {}

---A FreeBSD jail called name, with props inside.
---@param name string
---@param os prop.Property os.freebsd(...)
---@param props prop.Property[]
---@param opts? { path?: string, ip4?: string, mirror?: string }
---@return prop.Host
function jail.container(name, os, props, opts) end

---FreeBSD, revertable.  The jail c made and started, then provisioned.
---@param c prop.Host
---@return prop.Property
function jail.running(c) end

nginx = {}

---DebianLike, port 80 (shared with nginx's sites).  Installs nginx and starts it.
---`purge_sites = true`: /etc/nginx/sites-enabled holds only the sites the
---host declares (the rest removed, nginx -t, nginx reloaded only when
---something was removed).
---@param opts? { purge_sites?: boolean }
---@return prop.Property
function nginx.installed(opts) end

---DebianLike, revertable (to nginx.site_disabled).  sites-available/NAME
---and its sites-enabled link; nginx -t before the reload, and a
---configuration nginx refuses is put back as it was.  Claims web.name
---NAME:PORT for each server_name and listen port of a server block (80
---without listen), web.default PORT for default_server (two sites of one
---name and port: P017); declares its listen ports (shared with nginx's
---sites).  A text prop cannot read (an include, a variable, no server
---block) is W110.
---@param name string a file name: "example.org"
---@param content string the server blocks
---@return prop.Property
function nginx.site(name, content) end

---DebianLike.  sites-enabled/NAME removed (the file in sites-available
---kept), tested with nginx -t, reloaded.
---@param name string "default"
---@return prop.Property
function nginx.site_disabled(name) end

firewall = {}

---@class prop.FirewallRule
---@field port integer
---@field proto? "tcp"|"udp" default "tcp"
---@field from? string an address or network: "192.0.2.0/24", "2001:db8::/32"

---@class prop.FirewallOptions
---@field allow? (integer|prop.FirewallRule)[] a number is a TCP port
---@field policy? "drop"|"reject" default "drop"
---@field ping? boolean accept ICMP echo (default true)

---@class prop.NftablesOptions: prop.FirewallOptions
---@field declared? boolean also accept the host's declared ports (sys.ports)

---DebianLike, revertable.  /etc/nftables.conf holding the table "inet
---prop" (input policy drop), checked with nft -c, then loaded with nft -f;
---prop's SSH port is always accepted.  Other tables are left alone.
---@param opts prop.NftablesOptions
---@return prop.Property
function firewall.nftables(opts) end

---DebianLike, revertable.  firewall.nftables accepting exactly the ports the
---host's properties declare (ports=), on TCP and UDP, plus allow and
---prop's SSH port.
---@param opts? prop.FirewallOptions
---@return prop.Property
function firewall.open_declared(opts) end

---@class prop.FirewallAllowOptions
---@field port integer
---@field proto? "tcp"|"udp" default "tcp"
---@field from? string|string[] an address or network, or a list of them (a rule each)

---DebianLike, not revertable.  One more port the host's firewall.nftables
---or firewall.open_declared accepts, from any role (P012 on a host
---without one); two roles allowing one port agree.
---@param opts prop.FirewallAllowOptions
---@return prop.Property
function firewall.allow(opts) end

selinux = {}

---DebianLike and RedHatLike, not revertable.  SELINUX= in
---/etc/selinux/config (the rest kept); setenforce when the running kernel
---has SELinux; a change to or from disabled: a note that a reboot is needed.
---@param mode "enforcing"|"permissive"|"disabled"
---@return prop.Property
function selinux.mode(mode) end

---@class prop.SelinuxBooleanOptions
---@field persistent? boolean in the policy store (semanage boolean -m; default true), else setsebool only

---DebianLike and RedHatLike, revertable when persistent (back to the
---policy's default).  semanage boolean -m in the store, setsebool when
---SELinux runs.
---@param name string "httpd_can_network_connect"
---@param value boolean
---@param opts? prop.SelinuxBooleanOptions
---@return prop.Property
function selinux.boolean(name, value, opts) end

---@class prop.SelinuxFcontextOptions
---@field ftype? "a"|"f"|"d"|"c"|"b"|"s"|"l"|"p"|string which files (semanage fcontext -f; default "a")
---@field restorecon? boolean relabel the pattern's directory after a change (default true)

---DebianLike and RedHatLike, revertable (semanage fcontext -d).  A local
---file-context rule (semanage fcontext -a/-m), then restorecon -R when
---SELinux runs.
---@param pattern string "/srv/web(/.*)?"
---@param type string "httpd_sys_content_t"
---@param opts? prop.SelinuxFcontextOptions
---@return prop.Property
function selinux.fcontext(pattern, type, opts) end

---DebianLike and RedHatLike, revertable (semanage port -d).  The type of a
---port (semanage port -a/-m); declares no port.
---@param port integer|string 8081 or "8080-8090"
---@param proto "tcp"|"udp"|"dccp"|"sctp"
---@param type string "http_port_t"
---@return prop.Property
function selinux.port(port, proto, type) end

---@class prop.SelinuxModuleOptions
---@field source? string the text of a .te (site.file "selinux/myapp.te")
---@field path? string a compiled .pp on the target

---DebianLike and RedHatLike, revertable (semodule -r).  A policy module,
---compiled from source on the target or a ready .pp, installed with
---semodule -i when the installed one's content differs.
---@param name string the module's name, as its "module NAME VERSION;" line says
---@param opts prop.SelinuxModuleOptions
---@return prop.Property
function selinux.module(name, opts) end

tor = {}

---DebianLike, port 443 unless told.  A Tor bridge relay; another ORPort
---line of torrc is removed.
---@param opts? { port?: integer }
---@return prop.Property
function tor.bridge(opts) end

postfix = {}

---DebianLike, port 25.  Installs postfix as debconf's "Internet Site"
---(no question asked) and starts it.  Not beside postfix.satellite (P007).
---@return prop.Property
function postfix.installed() end

---DebianLike.  One "name = value" line of /etc/postfix/main.cf per
---setting (true/false: yes/no, a list joined with ", "); each claimed
---(another value for one parameter is P007); checked with postfix check on
---a copy before it replaces main.cf; postfix reloaded after a change.
---@param settings table<string, string|integer|boolean|string[]> { relayhost = "[smtp.example.org]:587" }
---@return prop.Property
function postfix.main_cf(settings) end

---@class prop.SatelliteOptions
---@field mailname? string /etc/mailname (default: the host's own name)

---DebianLike.  A null client: postfix installed as a "Satellite system",
---relayhost = relay, mydestination empty, inet_interfaces =
---loopback-only, myorigin = /etc/mailname; no port declared.
---@param relay string "smtp.example.org", "[smtp.example.org]:587"
---@param opts? prop.SatelliteOptions
---@return prop.Property
function postfix.satellite(relay, opts) end

fail2ban = {}

---DebianLike.  Installs fail2ban and starts it (failing with
---fail2ban-client -t's message when it refuses the configuration).
---@return prop.Property
function fail2ban.installed() end

---DebianLike, revertable (the file removed).  /etc/fail2ban/jail.d/NAME.local
---with [NAME], enabled = true and each setting; fail2ban-client -t before
---the reload, and a configuration fail2ban refuses is put back as it was.
---@param name string "sshd", or "DEFAULT" for every jail's defaults
---@param settings table<string, string|integer|boolean|string[]> { maxretry = 3, bantime = "1h" }
---@return prop.Property
function fail2ban.jail(name, settings) end

postgresql = {}

---DebianLike, port 5432.  Installs postgresql and starts it.
---@return prop.Property
function postgresql.installed() end

---@class prop.PostgresqlDatabaseOptions
---@field owner? string the owning role
---@field encoding? string "UTF8"; only given at creation, then compared
---@field template? string "template0" (for an encoding other than template1's)

---DebianLike, revertable (DROP DATABASE).  CREATE DATABASE when missing,
---its owner set.  Uses service postgresql.
---@param name string
---@param opts? prop.PostgresqlDatabaseOptions
---@return prop.Property
function postgresql.database(name, opts) end

---@class prop.PostgresqlRoleOptions
---@field password? any secret "name" from the site's store (a plain string is refused)
---@field login? boolean default false
---@field superuser? boolean default false
---@field createdb? boolean default false
---@field createrole? boolean default false
---@field replication? boolean default false
---@field inherit? boolean default true
---@field bypassrls? boolean default false

---DebianLike, revertable (DROP ROLE).  Attributes compared exactly with
---pg_roles; the password's stored SCRAM/MD5 verifier compared with the
---secret (never by logging in), set again when it differs.  Uses service
---postgresql.
---@param name string
---@param opts? prop.PostgresqlRoleOptions
---@return prop.Property
function postgresql.role(name, opts) end

---@class prop.PostgresqlGrantOptions
---@field on string "database x", "schema s", "table [s.]t" or "all tables in schema s"
---@field privileges string[] { "SELECT", "INSERT" }, or { "ALL" }
---@field database? string where a schema or table is (default "postgres")

---DebianLike, revertable (REVOKE).  The role's privileges on the object
---compared exactly (aclexplode): missing ones granted, others revoked.
---Uses service postgresql.
---@param role string
---@param opts prop.PostgresqlGrantOptions
---@return prop.Property
function postgresql.grant(role, opts) end

---@class prop.PostgresqlHbaLine
---@field type "local"|"host"|"hostssl"|"hostnossl"|"hostgssenc"|"hostnogssenc"
---@field database string
---@field user string
---@field address? string not for type "local"
---@field method string "scram-sha-256", "peer", "reject"...
---@field options? string "clientcert=verify-full"

---DebianLike, revertable (the block removed).  prop's block of
---pg_hba.conf (after "local all postgres peer"), checked with
---pg_hba_file_rules (refused lines put back), then the server reloaded.
---@param lines string|prop.PostgresqlHbaLine|(string|prop.PostgresqlHbaLine)[]
---@param opts? { version?: string } the cluster /etc/postgresql/VERSION/main (claims its lines)
---@return prop.Property
function postgresql.hba(lines, opts) end

---DebianLike, revertable (DROP EXTENSION).  CREATE EXTENSION in a database.
---@param name string "pgcrypto", "hstore"
---@param opts? { database?: string } default "postgres"
---@return prop.Property
function postgresql.extension(name, opts) end

borg = {}

---@class prop.BorgKeep
---@field hourly? integer
---@field daily? integer
---@field weekly? integer
---@field monthly? integer
---@field yearly? integer

---@class prop.BorgOptions
---@field keep? prop.BorgKeep archives borg prune keeps (none given: no pruning)
---@field passphrase? any secret "name" from the site's store: encrypts the repository (repokey)
---@field when? string "hourly", "daily" (default), "weekly", "monthly" or a cron schedule
---@field exclude? string|string[] borg create --exclude patterns: "/proc/*"
---@field name? string the cron job's and the script's name (default "borg-" and the repository's words)
---@field env? table<string, string> variables for borg and the job's script: { BORG_REMOTE_PATH = "borg-1.2" } (no secrets)
---@field keyfile? any secret "name": the repository's key file, written to /root/.config/borg/keys/NAME

---DebianLike, revertable (the job, script and passphrase file removed;
---never the repository).  borgbackup and cron installed, cron running, the repository
---made with borg init when missing, /usr/local/sbin/NAME running borg
---create, prune and compact, and /etc/cron.d/NAME running it.
---@param dirs string|string[] absolute paths
---@param repo string "/var/backups/borg" or "backup@nas:/srv/borg"
---@param opts? prop.BorgOptions
---@return prop.Property
function borg.backup(dirs, repo, opts) end

---@class prop.HiddenServiceOptions
---@field target? integer|string where connections go: a port, "127.0.0.1:8080", "[::1]:80" or "unix:/run/app.sock" (default 127.0.0.1:PORT)

---DebianLike, revertable.  An onion service: /etc/tor/torrc.d/hidden-service-NAME
---(HiddenServiceDir, HiddenServicePort), included from torrc, checked
---with tor --verify-config before tor is reloaded; one refused is put back.
---The address is in sys.facts.onion[NAME].
---@param name string "web"
---@param port integer the onion address's port
---@param opts? prop.HiddenServiceOptions
---@return prop.Property
function tor.hidden_service(name, port, opts) end

mysql = {}

---DebianLike, port 3306.  Installs mariadb-server and starts the mariadb
---service.
---@return prop.Property
function mysql.installed() end

---@class prop.MysqlDatabaseOptions
---@field encoding? string the default character set: "utf8mb4"
---@field collation? string the default collation: "utf8mb4_unicode_ci"

---DebianLike, revertable (DROP DATABASE).  Created when missing; its
---defaults changed (ALTER DATABASE) when they differ from those given.
---Uses service mariadb.
---@param name string "app"
---@param opts? prop.MysqlDatabaseOptions
---@return prop.Property
function mysql.database(name, opts) end

---@class prop.MysqlUserOptions
---@field password? any secret "name" from the site's store (plain text is refused)
---@field host? string "localhost" (default), an address or a pattern: "10.0.0.%"
---@field plugin? "mysql_native_password"|"unix_socket" default: mysql_native_password with a password, else unix_socket

---DebianLike, revertable (DROP USER).  The stored hash is compared with
---what the secret hashes to on the server; a missing account is
---created, a wrong password or plugin set.  Uses service mariadb.
---@param name string "app"
---@param opts? prop.MysqlUserOptions
---@return prop.Property
function mysql.user(name, opts) end

---@class prop.MysqlGrantOptions
---@field on string "*.*", "DATABASE.*" or "DATABASE.TABLE"
---@field privileges string[] { "SELECT", "INSERT" } (ALL is refused: list them)
---@field host? string "localhost" (default)

---DebianLike, revertable (REVOKE ALL PRIVILEGES, GRANT OPTION on the
---object).  The account's privileges on the object made exactly those
---given: missing ones granted, others revoked.  Uses service mariadb.
---@param user string the account's name
---@param opts prop.MysqlGrantOptions
---@return prop.Property
function mysql.grant(user, opts) end

---DebianLike, revertable (the line taken out).  NAME = VALUE in [mysqld]
---of /etc/mysql/mariadb.conf.d/60-prop.cnf (one file for the host), then
---mariadb restarted once; verify: SELECT @@NAME.  Uses service mariadb.
---@param name string a server system variable: "max_connections"
---@param value string|integer|boolean 200, "64M", true (ON)
---@return prop.Property
function mysql.setting(name, value) end

network = {}

---@class prop.InterfaceConfig
---@field method? "dhcp"|"static" default "static" when address is given
---@field address? string with its prefix length: "192.0.2.5/24", "2001:db8::5/64"
---@field gateway? string inside the address's network
---@field dns? string[] dns-nameservers
---@field auto? boolean "auto" (default) or "allow-hotplug"
---@field options? string[] more ifupdown lines: "mtu 1400"
---@field over_ssh? boolean take down and up the interface prop's SSH connection goes through

---DebianLike (ifupdown), revertable.  /etc/network/interfaces.d/NAME,
---parsed with ifquery; the interface is taken down and up when it changed
---(the old file put back when ifup fails), except the one prop's SSH
---connection goes through unless over_ssh.
---@param name string "eth0"
---@param cfg prop.InterfaceConfig
---@return prop.Property
function network.interface(name, cfg) end

---DebianLike (ifupdown).  /etc/network/interfaces.d/NAME written from the
---interface's live static addresses and default gateway, when missing.
---@param name string "eth0"
---@return prop.Property
function network.preserve_static(name) end

letsencrypt = {}

---@class prop.CertbotOptions
---@field webroot? string served at http://DOMAIN/.well-known/acme-challenge/ (default "/var/www/html")
---@field server? string an ACME directory URL (default Let's Encrypt)
---@field web_server? string the service that serves webroot ("nginx", "apache2")
---@field reload? string a service reloaded after each renewal (deploy hook /etc/letsencrypt/renewal-hooks/deploy/prop-reload-SERVICE)

---DebianLike.  A certificate in /etc/letsencrypt/live/FIRST from certbot
---certonly --webroot, requested only when the one there does not name
---every domain or expires within 30 days.
---@param domains string|string[] "example.org" or { "example.org", "www.example.org" }
---@param email string "admin@example.org"
---@param opts? prop.CertbotOptions
---@return prop.Property
function letsencrypt.certbot(domains, email, opts) end

web = {}

---@class prop.WebSiteOptions
---@field root? string a directory served as is (one of root, proxy, redirect)
---@field proxy? string a backend URL every request is passed to ("http://127.0.0.1:8080")
---@field redirect? string a URL everything is redirected to (301, path kept)
---@field port? integer default 80, or 443 with tls
---@field tls? false|"letsencrypt"|{ cert: string|prop.Secret, key: prop.Secret } a plain-HTTP site on 80 (ACME challenge, redirect) is added
---@field default? boolean the site answering names no site of its port has
---@field server? "nginx"|"apache" not given: web.site is a role picking what the host's list installs
---@field extra? string raw directives inside the server block / VirtualHost
---@field email? string the ACME account's address (required with tls = "letsencrypt")
---@field acme_server? string an ACME directory URL (default Let's Encrypt)

---DebianLike, revertable (its site files disabled).  A typed web site:
---nginx's or Apache's configuration made from names, what it serves, its
---port and TLS; claims web.name NAME:PORT for each name, web.default PORT
---with default = true, and its ports shared with the server's sites.
---Without server=, a role (a function for the host's list).
---@param names string|string[] "example.org" or { "example.org", "www.example.org" }
---@param opts prop.WebSiteOptions
---@return prop.Property|fun(h: prop.RoleHost): prop.Property
function web.site(names, opts) end

---The DNS names the first certificate of a PEM text covers (its
---subjectAltName's, else its subject's CN), lower-cased: what web.site
---checks a { cert = } against.  nil and why when it cannot be read.
---@param pem string
---@return string[]|nil names
---@return string? why
function web.cert_names(pem) end

zfs = {}

---UnixLike.  A ZFS dataset made (zfs create -o) or its properties set
---(zfs set); revertable (zfs destroy) only with destroy_on_revert = true.
---@param name string "tank/data"
---@param opts? { mountpoint?: string, compression?: string, properties?: table<string, string|integer|boolean>, parents?: boolean, destroy_on_revert?: boolean }
---@return prop.Property
function zfs.dataset(name, opts) end
