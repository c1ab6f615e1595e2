-- The systemd recipes on the Red Hat family (and any Linux): unit files,
-- their state and journald's settings, as on Debian.
host "worker.example.com" {
  os.rhel("9", "amd64"),
  systemd.unit("backup.service", [[
[Unit]
Description=Nightly backup
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/backup
]]),
  systemd.unit("backup.timer", [[
[Timer]
OnCalendar=daily
[Install]
WantedBy=timers.target
]]),
  systemd.enabled "backup.timer",
  systemd.started "backup.timer",
  systemd.masked "kdump.service",
  systemd.journald_persistent(),
  systemd.journald_configured { SystemMaxUse = "200M" },
}
host "fedora.example.com" {
  os.fedora("41", "amd64"),
  systemd.enabled "chronyd",
}
