-- A Tor bridge on a small ARM board; the web server that used to run here
-- moved, so Apache is removed (tor needs port 443).

host "bridge.example.net" {
  os.debian("bookworm", "armhf"),
  connect.ssh { address = "203.0.113.9" },
  ipv4 "203.0.113.9",
  apt.removed { "apache2" },
  tor.bridge(),
  file.contains_lines("/etc/tor/torrc", { "Nickname examplebridge", "ContactInfo ops@example.net" })
    :on_change(service.restarted "tor"),
  service.running "tor",
  hostname.set "bridge.example.net",
}
