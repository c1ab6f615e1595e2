-- file.fragment, file.fragments and firewall.allow: each bad argument a
-- clear message (prop lint shows it at the site's line, P012), and the
-- claims a good call makes.
local T = require "check"
local F = prop_module "file"
local FW = prop_module "firewall"

local P = "/etc/hosts"
-- file.fragment(path, name, text [, { order = }])
T.err(T.invalid(F.fragment, "hosts", "db", "x"), "file.fragment: path must be an absolute path",
      "fragment: a relative path")
T.err(T.invalid(F.fragment, P, "", "x"), "file.fragment: name must not be empty",
      "fragment: an empty name")
T.err(T.invalid(F.fragment, P, 7, "x"), "name must be a non-empty string, got number 7",
      "fragment: a name that is no string")
T.err(T.invalid(F.fragment, P, "a\nb", "x"), 'name "a\\nb" must not contain a newline',
      "fragment: a newline in the name")
T.err(T.invalid(F.fragment, P, "db", nil), "text must be a string or a list of lines, got nothing",
      "fragment: no text")
T.err(T.invalid(F.fragment, P, "db", ""), "text must not be empty", "fragment: empty text")
T.err(T.invalid(F.fragment, P, "db", { "a", 3 }), "text[2]", "fragment: a line that is no string")
T.err(T.invalid(F.fragment, P, "db", "a\0b"), "must not contain a NUL byte", "fragment: NUL")
T.err(T.invalid(F.fragment, P, "db", "x", { order = "10" }), "order must be an integer",
      "fragment: order as a string")
T.err(T.invalid(F.fragment, P, "db", "x", { order = 2.5 }), "order must be an integer",
      "fragment: a fractional order")
T.err(T.invalid(F.fragment, P, "db", "x", { order = 1e12 }), "order must be within",
      "fragment: an order out of range")
T.err(T.invalid(F.fragment, P, "db", "x", { ordr = 1 }), 'unknown key "ordr" for file.fragment',
      "fragment: an unknown option")
T.err(T.invalid(F.fragment, P, "db", "x", {}, "more"), "too many arguments",
      "fragment: an extra argument")
T.eq(T.invalid(F.fragment, P, "db", { "10.0.0.3 db", "10.0.0.4 db2" }, { order = -5 }), nil,
     "fragment: a list of lines and a negative order")

-- file.fragments(path [, { header =, mode =, owner =, group =, validate = }])
T.err(T.invalid(F.fragments, "etc/hosts"), "file.fragments: path must be an absolute path",
      "fragments: a relative path")
T.err(T.invalid(F.fragments, P, { header = 3 }), "header must be a string or a list of lines",
      "fragments: a header that is no text")
T.err(T.invalid(F.fragments, P, { mode = 644 }), "mode must be a string",
      "fragments: a mode as a number")
T.err(T.invalid(F.fragments, P, { validate = { "visudo", "-c" } }),
      'must hold "%s", which stands for the file to check', "fragments: validate without %s")
T.err(T.invalid(F.fragments, P, { validate = "visudo -c -f %s" }), "validate",
      "fragments: validate as a string")
T.err(T.invalid(F.fragments, P, { headr = "#" }), 'unknown key "headr" for file.fragments',
      "fragments: an unknown option")
T.err(T.invalid(F.fragments, P, {}, "more"), "too many arguments", "fragments: an extra argument")
T.eq(T.invalid(F.fragments, P, { header = "# managed by prop", mode = "0440", owner = "root",
                                 group = "root", validate = { "visudo", "-c", "-f", "%s" } }),
     nil, "fragments: every option")

-- firewall.allow { port =, proto =, from = }
T.err(T.invalid(FW.allow), "firewall.allow needs { port = N }", "allow: nothing")
T.err(T.invalid(FW.allow, {}), "firewall.allow has no port", "allow: no port")
T.err(T.invalid(FW.allow, { port = 0 }), "port 0 is outside 1..65535", "allow: port 0")
T.err(T.invalid(FW.allow, { port = "ssh" }), "port must be a port number", "allow: a named port")
T.err(T.invalid(FW.allow, { port = 53, proto = "icmp" }), 'proto must be "tcp" or "udp"',
      "allow: a bad proto")
T.err(T.invalid(FW.allow, { port = 22, from = "10.0.0.300" }), "is not an address or network",
      "allow: a bad address")
T.err(T.invalid(FW.allow, { port = 22, from = {} }), "from must not be an empty list",
      "allow: an empty from")
T.err(T.invalid(FW.allow, { port = 22, from = { "192.0.2.0/24", "x" } }),
      'from[2] "x" is not an address or network', "allow: a bad address in a list")
T.err(T.invalid(FW.allow, { port = 22, prot = "tcp" }), 'unknown key "prot" for firewall.allow',
      "allow: an unknown option")
T.err(T.invalid(FW.allow, { port = 22 }, { port = 80 }), "takes one table of options",
      "allow: two tables")
T.eq(T.invalid(FW.allow, { port = 5432, proto = "tcp", from = { "192.0.2.0/24", "2001:db8::/32" } }),
     nil, "allow: every option")
T.done()
