-- prop.core's leaf and claims: core.leaf{...} with named fields, the
-- claims core.claim makes, an unknown field refused, and the positional
-- form of old refused.
local T = require "check"
local core = prop_module "core"
local claim = core.claim

-- core.claim.KIND(key, value): { kind, key, value }
T.eq(claim.file_content("/etc/motd", "hi\n"), { "file.content", "/etc/motd", "hi\n" },
     "claim: file_content")
local c = claim.package_installed("nginx")
T.eq({ c[1], c[2] }, { "package.installed", "nginx" }, "claim: package_installed")
T.ok(c[3] == false, "claim: no value is false")
T.eq(claim.user("deploy", 1001), { "user", "deploy", 1001 }, "claim: an id")
T.ok(claim.user_setting ~= nil and claim.service_restarted ~= nil, "claim: every kind")
T.raises(function() return claim.file_mode("/x", {}) end, "value must be a string",
         "claim: a table as value")
T.raises(function() return claim.file_mode(nil, "0644") end, "string expected",
         "claim: no key")

-- core.leaf{...}
local impl = { check = function() return true end }
local p = core.leaf{ desc = "motd written", targets = "DebianLike", impl = impl, args = {},
                     claims = { claim.file_content("/etc/motd", "hi\n"),
                                claim.file_mode("/etc/motd", "0644") },
                     ports = { 8080 }, norevert = "cannot" }
T.eq({ p.desc, p.kind, p.type }, { "motd written", "property", "DebianLike, ports 8080" }, "leaf: named")
T.eq(#p.claims, 2, "leaf: its claims")
T.eq({ p.claims[1].kind, p.claims[1].key }, { "file.content", "/etc/motd" }, "leaf: first claim")
T.eq({ p.claims[2].kind, p.claims[2].key }, { "file.mode", "/etc/motd" }, "leaf: second claim")
T.raises(function() return core.leaf{ desc = "x", claim = {} } end, 'unknown field "claim"',
         "leaf: a misspelt field")
T.raises(function() return core.leaf{ desc = "x", claims = { "file.content" } } end,
         "is not a claim", "leaf: a claim that is not one")
T.raises(function() return core.leaf{ desc = "x", claims = { { "no.such", "/x", false } } } end,
         "unknown kind", "leaf: an unknown kind")

-- Web sites: their claim kinds, and the ports a server's sites share.
T.eq(claim.web_name("www.example.com:80", "nginx"), { "web.name", "www.example.com:80", "nginx" },
     "claim: web_name")
T.eq(claim.web_default("443", "nginx"), { "web.default", "443", "nginx" }, "claim: web_default")
local s = core.leaf{ desc = "nginx site a", targets = "DebianLike", ports = { 80, 443 },
                     shares_ports = "nginx",
                     claims = { claim.web_name("WWW.Example.com:443", "nginx") } }
T.eq(s.claims[1].key, "www.example.com:443", "leaf: a web.name key is lower-cased")
T.raises(function() return core.leaf{ desc = "x", shares_ports = 80 } end,
         "shares_ports must be a string naming a server", "leaf: shares_ports not a string")
T.raises(function() return core.leaf{ desc = "x", shares_ports = "" } end,
         "shares_ports must name a server", "leaf: shares_ports empty")
T.raises(function()
   return core.leaf{ desc = "x", claims = { claim.web_name("www.example.com", "nginx") } }
end, 'key must be "NAME:PORT"', "leaf: a web.name key without a port")

-- The positional form of old is refused, with the form to use.
T.raises(function()
   return core.leaf("old form", "DebianLike", impl, {}, { "file.content", "/etc/issue", "x\n" })
end, "core.leaf takes one table of named fields", "leaf: positional")

T.done()
