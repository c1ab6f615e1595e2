-- prop.conf: one setting of a configuration file edited in place.
local T = require "check"
local conf = prop_module "conf"
local fakesys = require "fakesys"

T.eq(conf.line("Port", "22", { sep = " " }), "Port 22", "line: a blank separator")
T.eq(conf.line("a", "1"), "a = 1", "line: the default separator")

-- set_key: in place, the commented one, else appended
T.eq(conf.set_key(nil, "a", "1"), "a = 1\n", "set_key: a missing file")
T.eq(conf.set_key("x = 0\na = 2\ny = 3\n", "a", "1"), "x = 0\na = 1\ny = 3\n", "set_key: in place")
T.eq(conf.set_key("a=1\n", "a", "1"), "a=1\n", "set_key: the right value keeps its spelling")
T.eq(conf.set_key("a = 1\nb = 2\na = 3\n", "a", "1"), "a = 1\nb = 2\n", "set_key: later ones removed")
T.eq(conf.set_key("#a = 0\nb = 2\n", "a", "1"), "a = 1\nb = 2\n", "set_key: the commented one replaced")
T.eq(conf.set_key("ab = 0\n", "a", "1"), "ab = 0\na = 1\n", "set_key: another key with the prefix")
T.eq(conf.set_key("Port 2222\n", "Port", "22", { sep = " " }), "Port 22\n", "set_key: blank separator")
T.eq(conf.set_key("; a = 0\n", "a", "1", { comment = ";" }), "a = 1\n", "set_key: another comment")
T.eq(conf.set_key("no newline", "a", "1"), "no newline\na = 1\n", "set_key: appended after a last line")

-- unset_key
T.eq(conf.unset_key("a = 1\nb = 2\n", "a", nil), "b = 2\n", "unset_key: any value")
T.eq(conf.unset_key("a = 1\nb = 2\n", "a", "2"), "a = 1\nb = 2\n", "unset_key: another value stays")
T.eq(conf.unset_key("#a = 1\n", "a", nil), "#a = 1\n", "unset_key: comments stay")
T.eq(conf.unset_key(nil, "a", nil), nil, "unset_key: a missing file stays missing")

-- set_ini / unset_ini
local ini = "[one]\na = 1\n\n[two]\nb = 2\n"
T.eq(conf.set_ini(ini, "one", "a", "9"), "[one]\na = 9\n\n[two]\nb = 2\n", "set_ini: in place")
T.eq(conf.set_ini(ini, "one", "c", "3"), "[one]\na = 1\nc = 3\n\n[two]\nb = 2\n",
     "set_ini: after the section's last line")
T.eq(conf.set_ini(ini, "two", "a", "5"), "[one]\na = 1\n\n[two]\nb = 2\na = 5\n",
     "set_ini: the same key of another section is not touched")
T.eq(conf.set_ini(ini, "three", "c", "3"), ini .. "\n[three]\nc = 3\n", "set_ini: a new section")
T.eq(conf.set_ini("[s]\n;k = 0\n", "s", "k", "1"), "[s]\nk = 1\n", "set_ini: a commented one")
T.eq(conf.set_ini(nil, "s", "k", "1", { sep = "=" }), "[s]\nk=1\n", "set_ini: a missing file")
T.eq(conf.unset_ini(ini, "two", "b", "2"), "[one]\na = 1\n\n[two]\n", "unset_ini")
T.eq(conf.unset_ini(ini, "one", "b", "2"), ini, "unset_ini: not in that section")
T.eq(conf.unset_ini(ini, "none", "a", "1"), ini, "unset_ini: no section")

-- ensure_edit
local sys = fakesys.new { files = { ["/etc/c"] = "a = 1\n",
                                    ["/etc/l"] = { type = "link", target = "c" },
                                    ["/etc/d"] = { type = "directory" } } }
local function set(v) return function(old) return conf.set_key(old, "a", v) end end
T.eq(conf.ensure_edit(sys, "t", "/etc/c", set("1")), false, "ensure_edit: nothing to change")
T.eq(#sys.writes, 0, "ensure_edit: nothing written")
T.eq(conf.ensure_edit(sys, "t", "/etc/l", set("2")), true, "ensure_edit: through a link")
T.eq(sys.files["/etc/c"].content, "a = 2\n", "ensure_edit: the link's file edited")
T.eq(sys.writes[1].o.via, "/etc/l", "ensure_edit: written via the claimed path")
T.eq(conf.ensure_edit(sys, "t", "/etc/new", set("3")), true, "ensure_edit: a new file")
T.eq(sys.writes[2].o.mode, tonumber("0644", 8), "ensure_edit: a new file is 0644")
T.eq(conf.ensure_edit(sys, "t", "/etc/none", function() return "" end), false,
     "ensure_edit: an empty new file is not made")
T.raises(function() conf.ensure_edit(sys, "t", "/etc/d", set("1")) end,
         "t: /etc/d is a directory, not a file", "ensure_edit: a directory")

-- check_value, claim
T.eq({ conf.check_value(8, "v") }, { nil, "8" }, "check_value: an integer")
T.eq({ conf.check_value("x y", "v") }, { nil, "x y" }, "check_value: a string")
T.eq(conf.check_value(1.5, "v"), "v must be a string or an integer, got 1.5", "check_value: a float")
T.eq(conf.check_value("a\nb", "v"), 'v "a\\nb" contains a newline: a setting is one line',
     "check_value: a newline")
T.eq(conf.check_value(" a", "v"), 'v " a" starts or ends with blanks, which a reader of the file drops',
     "check_value: blanks")
T.eq(conf.claim("a", "1"), "a=1", "claim")

T.done()
