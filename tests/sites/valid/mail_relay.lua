-- A Postfix relay that accepts mail from the LAN and forwards it to the
-- provider's smarthost.

local relayhost = "[smtp.provider.example]:587"

local main_cf = file.contains_lines("/etc/postfix/main.cf", {
  "relayhost = " .. relayhost,
  "mynetworks = 127.0.0.0/8 10.0.0.0/24",
  "inet_interfaces = all",
  "smtp_tls_security_level = encrypt",
})

local aliases = file.has_content("/etc/aliases", {
  "postmaster: root",
  "root: ops@example.com",
}):on_change(cmd.run { "newaliases" })

host "relay.example.com" {
  os.debian("bookworm", "arm64"),
  ipv4 "10.0.0.25",
  apt.installed { "postfix", "libsasl2-modules" },
  main_cf:requires(apt.installed "postfix"):on_change(service.restarted "postfix"),
  aliases,
  file.has_content("/etc/postfix/sasl_passwd", "[smtp.provider.example]:587 relay:hunter2\n",
                   { mode = "0600", owner = "root", secret = true })
    :on_change(cmd.run({ "postmap", "/etc/postfix/sasl_passwd" })),
  service.running "postfix",
}
