-- table.move walks the range it is given in C, allocating nothing.
--! args --max-cpu 2
--! fatal 4 used more than 2 s of CPU
table.move({}, 1, math.maxinteger - 1, 1, {})
host "x" { file.absent "/tmp/x" }
