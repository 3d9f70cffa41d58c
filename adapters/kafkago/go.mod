module github.com/assigncalc/assigncalc/adapters/kafkago

go 1.24.0

require (
	github.com/assigncalc/assigncalc v0.1.0
	github.com/google/go-cmp v0.7.0
	github.com/segmentio/kafka-go v0.4.51
)

require (
	github.com/klauspost/compress v1.15.9 // indirect
	github.com/pierrec/lz4/v4 v4.1.15 // indirect
)
