module evotune

go 1.26.8

require (
	github.com/MaxHalford/eaopt v0.4.2 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sync v0.0.0-20201020160332-67f06af15bc9 // indirect
)
