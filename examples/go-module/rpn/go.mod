module example.com/rpn

go 1.19

require github.com/pkg/errors v0.9.1
