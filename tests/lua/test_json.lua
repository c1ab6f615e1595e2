-- prop.json: json.encode, json.quote and yaml.quote on plain values (the
-- secrets' part is tests/run/test_json_secret.sh, which reveals them).
local T = require "check"
local json = prop_module "json"

T.eq(json.encode({ b = 1, a = { true, false, json.null } }), '{"a": [true, false, null], "b": 1}',
     "encode: keys sorted, arrays, null")
T.eq(json.encode({}), "[]", "encode: an empty table is an array")
T.eq(json.encode(json.object()), "{}", "encode: json.object{} is an empty object")
T.eq(json.encode({ x = { 1 } }, { indent = 2 }), '{\n  "x": [\n    1\n  ]\n}', "encode: indent")
T.eq(json.encode({ 0.5, 1.0, 3, -2, 1e300 }), "[0.5, 1.0, 3, -2, 1e+300]", "encode: numbers")
T.eq(json.encode('a"b\\c\n\t\1\127é😀'), '"a\\"b\\\\c\\n\\t\\u0001\\u007f\\u00e9\\ud83d\\ude00"',
     "encode: escapes, and only ASCII out")
T.eq(json.encode({ [1] = "a", [3] = "c" }), '{"1": "a", "3": "c"}', "encode: a list with a hole is an object")
T.eq(json.yaml_quote("it's: é\u{2028}"), '"it\'s: é\\u2028"', "yaml.quote: UTF-8 kept, a separator escaped")
T.eq(json.quote(42), '"42"', "json.quote: a number as a string")
T.raises(function() json.encode({ f = print }) end, "json.encode: a function cannot be written as JSON",
         "encode: a function")
T.raises(function() json.encode(0 / 0) end, "is not a JSON number", "encode: NaN")
T.raises(function() json.encode("\255") end, "a string that is not UTF-8 cannot be written as JSON",
         "encode: not UTF-8")
T.raises(function() json.yaml_quote({}) end, "yaml.quote: needs a string, a number or a secret, got table",
         "yaml.quote: a table")
T.raises(function() json.encode({}, { indent = -1 }) end, "indent must be a whole number", "encode: bad indent")
local deep = {}
local t = deep
for _ = 1, 70 do t[1] = {}; t = t[1] end
T.raises(function() json.encode(deep) end, "nested more than 64 deep", "encode: too deep")

T.done()
