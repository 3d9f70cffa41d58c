#!/bin/sh
# build.sh KAFKA_SRC OUT: compiles Kafka's StickyAssignor and
# CooperativeStickyAssignor, unmodified, from a checkout of Apache Kafka at
# KAFKA_SRC (nothing of Kafka is kept in this repository), with the Kafka
# classes they need, the stand-ins of stub/ for what those reference but the
# oracle never runs, and Oracle.java and Bench.java, into the class directory OUT.
set -eu
src=$1 out=$2
k=$src/clients/src/main/java/org/apache/kafka
here=$(dirname "$0")
mkdir -p "$out"
javac -nowarn -d "$out" \
	"$k/clients/consumer/StickyAssignor.java" "$k/clients/consumer/CooperativeStickyAssignor.java" \
	"$k/clients/consumer/ConsumerPartitionAssignor.java" "$k/clients/consumer/ConsumerGroupMetadata.java" \
	"$k/clients/consumer/internals/AbstractStickyAssignor.java" "$k/clients/consumer/internals/AbstractPartitionAssignor.java" \
	"$k/clients/consumer/internals/Utils.java" \
	"$k/common/Cluster.java" "$k/common/ClusterResource.java" "$k/common/Node.java" "$k/common/PartitionInfo.java" \
	"$k/common/TopicPartition.java" "$k/common/TopicIdPartition.java" "$k/common/Uuid.java" \
	"$k/common/KafkaException.java" "$k/common/Configurable.java" \
	"$k/common/utils/Utils.java" "$k/common/utils/ByteUtils.java" "$k/common/utils/OperatingSystem.java" \
	"$k/common/utils/CollectionUtils.java" "$k/common/protocol/Writable.java" "$k"/common/protocol/types/*.java \
	$(find "$here/stub" -name '*.java') \
	"$here/Oracle.java" "$here/Bench.java"
