module github.com/assigncalc/assigncalc/adapters/kafkago

go 1.26.0

replace github.com/assigncalc/assigncalc => ../../

replace github.com/assigncalc/assigncalc/adapters/franz => ../franz

require (
	github.com/assigncalc/assigncalc v0.0.0-00010101000000-000000000000
	github.com/segmentio/kafka-go v0.4.51
)

require (
	github.com/klauspost/compress v1.15.9 // indirect
	github.com/pierrec/lz4/v4 v4.1.15 // indirect
)

require github.com/google/go-cmp v0.7.0
