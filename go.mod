module trail

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/mattn/go-isatty v0.0.24
	github.com/tidwall/gjson v1.20.0
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/sys v0.28.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
