-- table.move walks the range it is given in C, allocating nothing:
-- each element walked is charged to the budget.
--! args --max-instructions 50000000
--! fatal 5 instruction
table.move({}, 1, math.maxinteger - 1, 1, {})
host "x" { file.absent "/tmp/x" }
