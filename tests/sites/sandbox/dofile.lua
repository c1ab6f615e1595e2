-- dofile would read any file.
--! fatal 3 undefined global "dofile"
dofile("/etc/passwd")
