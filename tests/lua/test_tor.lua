-- prop.tor: tor.bridge's port, checked while the site is read.
local T = require "check"
local show = prop_module "show"

T.eq(T.invalid(tor.bridge, { port = 0 }), "tor.bridge: port 0 is outside 1..65535", "bridge: port 0")
T.eq(T.invalid(tor.bridge, { prot = 9001 }),
     'unknown key "prot" for tor.bridge (did you mean "port"?)', "bridge: a typo")
T.eq(T.invalid(tor.bridge, {}, {}), "tor.bridge takes one options table at most",
     "bridge: two tables")
T.eq(T.invalid(tor.bridge), nil, "bridge: no options")
local p = tor.bridge()
T.err(show.property(p), "ports 443", "bridge: port 443 by default")
T.err(show.property(p), 'claims file.line /etc/tor/torrc "ORPort 443"', "bridge: its ORPort line")
local q = tor.bridge { port = 9001 }
T.eq(q.desc, "tor bridge on port 9001", "bridge: its port in its name")
T.err(show.property(q), "ports 9001", "bridge: moved to 9001")
T.err(show.property(q), 'claims file.setting /etc/tor/torrc "ORPort=9001"', "bridge: its setting")
T.ok(not show.property(q):find("ORPort 443", 1, true), "bridge: 443 not claimed once moved")

T.done()
