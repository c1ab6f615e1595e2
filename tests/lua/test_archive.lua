-- prop.archive and file.downloaded: each bad argument is a clear lint
-- error (the engine adds the site's file and line); the archive reader
-- and the checksum of prop.core.
local T = require "check"
local archive = prop_module "archive"
local file = prop_module "file"
local core = prop_module "core"

local SUM = string.rep("ab", 32)

-- archive.extracted
T.eq(T.invalid(archive.extracted, "opt/app", "/srv/app.tar.gz"),
     "archive.extracted: dest must be an absolute path (starting with /), got relative path \"opt/app\"",
     "extracted: a relative dest")
T.err(T.invalid(archive.extracted, "/opt/app", 42), "src must be a file beside the site",
      "extracted: src a number")
T.err(T.invalid(archive.extracted, "/opt/app", ""), "src must not be empty", "extracted: src empty")
T.err(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { strip = -1 }),
      "strip must be a count of leading path components (0..1000), got -1", "extracted: strip < 0")
T.err(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { strip = "1" }),
      "strip must be a count", "extracted: strip a string")
T.err(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { creates = "bin/app" }),
      "creates must be an absolute path", "extracted: creates relative")
T.err(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { exclude = { "" } }),
      "exclude", "extracted: an empty exclude glob")
T.err(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { owner = "bad name" }),
      "owner", "extracted: a bad owner")
T.err(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { stirp = 1 }),
      "stirp", "extracted: an unknown option")
T.eq(T.invalid(archive.extracted, "/opt/app", "/srv/a.tgz", { strip = 1, exclude = "*.log",
                                                              creates = "/opt/app/bin" }),
     nil, "extracted: good arguments")
-- a file.downloaded property is a source
T.eq(T.invalid(archive.extracted, "/opt/app",
               file.downloaded("/srv/a.tgz", "https://example.org/a.tgz", { sha256 = SUM })),
     nil, "extracted: from file.downloaded")

-- file.downloaded
T.err(T.invalid(file.downloaded, "/srv/a.tgz", "https://example.org/a.tgz"),
      "file.downloaded: sha256 is required", "downloaded: no sha256")
T.err(T.invalid(file.downloaded, "/srv/a.tgz", "https://example.org/a.tgz", {}),
      "sha256 is required", "downloaded: empty options")
T.err(T.invalid(file.downloaded, "/srv/a.tgz", "https://example.org/a.tgz", { sha256 = "abc" }),
      "sha256 must be the file's SHA-256, 64 hex digits", "downloaded: a short sha256")
T.err(T.invalid(file.downloaded, "srv/a.tgz", "https://example.org/a.tgz", { sha256 = SUM }),
      "path must be an absolute path", "downloaded: a relative path")
T.err(T.invalid(file.downloaded, "/srv/a.tgz", "file:///etc/shadow", { sha256 = SUM }),
      "must be an http://, https:// or ftp:// URL", "downloaded: a file: URL")
T.err(T.invalid(file.downloaded, "/srv/a.tgz", "https://example.org/a b", { sha256 = SUM }),
      "without blanks", "downloaded: a URL with a blank")
T.err(T.invalid(file.downloaded, "/srv/a.tgz", "https://example.org/a", { sha256 = SUM, mode = "999" }),
      "mode", "downloaded: a bad mode")
T.eq(T.invalid(file.downloaded, "/srv/a.tgz", "https://example.org/a.tgz",
               { sha256 = SUM:upper(), mode = "0640", owner = "root", group = 0 }),
     nil, "downloaded: good arguments")

-- prop.core: the reader refuses what is no archive, and the checksum
local list, err = core.archive_entries("not an archive at all", "junk.tgz")
T.eq(list, nil, "archive_entries: junk")
T.err(err, "junk.tgz", "archive_entries: the message names the archive")
T.eq(core.sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
     "sha256 of abc")

T.done()
