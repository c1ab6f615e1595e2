-- table.move walks the range it is given in C, allocating nothing:
-- the range is charged to the budget before it starts.
--! fatal 4 instruction
table.move({}, 1, math.maxinteger - 1, 1, {})
host "x" { file.absent "/tmp/x" }
