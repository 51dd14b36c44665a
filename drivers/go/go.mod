module wirebench/drivers/go

go 1.24.0

require (
	capnproto.org/go/capnp/v3 v3.1.0-alpha.2
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/colega/zeropool v0.0.0-20230505084239-6fb4a4f75381 // indirect
	golang.org/x/sync v0.7.0 // indirect
)

tool (
	capnproto.org/go/capnp/v3/capnpc-go
	google.golang.org/protobuf/cmd/protoc-gen-go
)
