-- prop.template: rendering, and the errors that name the template's line.
local T = require "check"
local tpl = prop_module "template"
local render = tpl.render

-- render(text, vars, name) -> text; errors are raised.
local function rerr(text, vars)
   local ok, e = pcall(render, text, vars, "t.conf")
   if ok then return nil end
   return e
end

T.eq(render("plain\n", nil, "t"), "plain\n", "no tags")
T.eq(render("port {{ port }};", { port = 80 }, "t"), "port 80;", "a number")
T.eq(render("{{ x }}", { x = 1.5 }, "t"), "1.5", "a float")
T.eq(render("{{ b }}", { b = false }, "t"), "false", "a boolean")
T.eq(render("{{ site.domain }}", { site = { domain = "example.org" } }, "t"), "example.org", "a path")
T.eq(render("{{ x | default(\"none\") }}", {}, "t"), "none", "default when undefined")
T.eq(render("{{ x | default(\"none\") }}", { x = "set" }, "t"), "set", "default unused")
T.eq(render("{{ x | default(8) }}", {}, "t"), "8", "default: a number literal")
T.eq(render("{{ l | join(\", \") }}", { l = { "a", "b", 3 } }, "t"), "a, b, 3", "join")
T.eq(render("{{ s | upper }}/{{ s | lower }}", { s = "MiX" }, "t"), "MIX/mix", "upper, lower")
T.eq(render("a{# comment #}b", {}, "t"), "ab", "a comment")

-- conditions
local c = "{% if on %}yes{% elif other %}other{% else %}no{% endif %}"
T.eq(render(c, { on = true }, "t"), "yes", "if")
T.eq(render(c, { on = false, other = true }, "t"), "other", "elif")
T.eq(render(c, { on = false, other = false }, "t"), "no", "else")
T.eq(render("{% if x == \"a\" %}A{% endif %}", { x = "a" }, "t"), "A", "==")
T.eq(render("{% if x != \"a\" %}A{% endif %}", { x = "a" }, "t"), "", "!=")
T.eq(render("{% if not x %}N{% endif %}", { x = false }, "t"), "N", "not")
T.eq(render("{% if x is defined %}D{% endif %}", {}, "t"), "", "is defined: no")
T.eq(render("{% if x is not defined %}U{% endif %}", {}, "t"), "U", "is not defined")

-- loops, and lines holding only a tag leave nothing
T.eq(render("{% for x in l %}{{ loop.index }}={{ x }}{% if not loop.last %},{% endif %}{% endfor %}",
            { l = { "a", "b" } }, "t"), "1=a,2=b", "for over a list, loop.index, loop.last")
T.eq(render("{% for k, v in m %}{{ k }}:{{ v }};{% endfor %}", { m = { b = 2, a = 1 } }, "t"),
     "a:1;b:2;", "for over a map, in key order")
T.eq(render("head\n{% for x in l %}\n- {{ x }}\n{% endfor %}\ntail\n", { l = { "a", "b" } }, "t"),
     "head\n- a\n- b\ntail\n", "tag lines leave no blank line")

-- errors: the template's name and line
T.eq(rerr("a\n{{ nope }}", {}),
     "t.conf:2: \"nope\" is not defined: the variables given to the template have no nope",
     "undefined variable at its line")
T.eq(rerr("{{ a.b }}", { a = {} }), "t.conf:1: \"a.b\" is not defined: the variables given to the template have no a.b",
     "undefined field")
T.eq(rerr("x {{ y", {}), "t.conf:1: \"{{\" is never closed by \"}}\"", "an unclosed tag")
T.eq(rerr("{{ 1x }}", {}), "t.conf:1: \"1x\" is not a variable name (names such as port or site.domain)",
     "not a name")
T.eq(rerr("{{ x | shout }}", { x = "a" }),
     "t.conf:1: unknown filter \"shout\" (filters: default(x), join(sep), upper, lower)", "unknown filter")
T.eq(rerr("{{ x | join }}", { x = {} }), "t.conf:1: join needs an argument: join(...)", "join without argument")
T.eq(rerr("{{ x | default(y) }}", {}),
     "t.conf:1: default(...) takes a literal such as \", \" or 80, got y", "default of a name")
T.eq(rerr("{{ x }}", { x = {} }), "t.conf:1: \"x\" is a table: write it with {% for %} or | join(\", \")",
     "a table written")
T.eq(rerr("{{ x | upper }}", { x = 1 }), "t.conf:1: upper takes a string; \"x | upper\" is a number", "upper of a number")
T.eq(rerr("{{ x | join(\",\") }}", { x = "s" }), "t.conf:1: join takes a list; \"x | join(\",\")\" is a string",
     "join of a string")
T.eq(rerr("\n{% if x %}", { x = true }), "t.conf:2: {% if %} is never closed by {% endif %}", "if unclosed")
T.eq(rerr("{% for x in l %}", { l = {} }), "t.conf:1: {% for %} is never closed by {% endfor %}",
     "for unclosed")
T.eq(rerr("{% for x l %}{% endfor %}", {}),
     "t.conf:1: {% for x l %} must be \"for x in list\" or \"for k, v in map\"", "for malformed")
T.eq(rerr("{% endif %}", {}), "t.conf:1: {% endif %} without the {% if %} it closes", "endif alone")
T.eq(rerr("{% while x %}", {}), "t.conf:1: unknown tag {% while x %} (tags: if, elif, else, endif, for, endfor)",
     "unknown tag")
T.eq(rerr("{% for x in l %}{% endfor %}", { l = "s" }),
     "t.conf:1: {% for %} needs a list or a table; \"l\" is a string", "for over a string")
T.err(rerr(42, {}), "template: the text must be a string, got number", "text not a string")
T.err(rerr("x", "vars"), "template: the variables must be a table { name = value, ... }, got string",
      "variables not a table")

T.done()
