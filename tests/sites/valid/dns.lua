-- DNS: every host declares its addresses and aliases as info; the name
-- server builds its zone from them at run time.

local zone_path = "/etc/bind/db.example.com"

local zone = property {
  desc = "zone example.com lists every host",
  targets = "DebianLike",
  check = function(sys) return sys:read(zone_path) ~= nil end,
  apply = function(sys)
    local lines = { "$TTL 3600", "@ IN SOA ns1.example.com. hostmaster.example.com. 1 3600 600 86400 3600" }
    for _, h in ipairs(site.hosts()) do
      local name = h.name:gsub("%.example%.com$", "")
      for _, a in ipairs(h:info "ipv4") do lines[#lines + 1] = name .. " IN A " .. a end
      for _, a in ipairs(h:info "ipv6") do lines[#lines + 1] = name .. " IN AAAA " .. a end
    end
    sys:write(zone_path, table.concat(lines, "\n") .. "\n", { mode = "0644" })
  end,
}

host "ns1.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.53",
  ipv6 "2001:db8::53",
  apt.installed { "bind9" },
  zone:on_change(service.restarted "named"),
  service.running "named",
}

host "www.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.80",
  ipv6 "2001:db8::80",
  alias "example.com",
  alias "web.example.com",
}

host "mail.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.25",
  ipv6 "2001:db8:0:0:0:0:0:25",
}
