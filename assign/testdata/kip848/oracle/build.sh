#!/bin/sh
# build.sh KAFKA_SRC OUT: compiles Kafka's KIP-848 assignors from a checkout
# of Apache Kafka at KAFKA_SRC (nothing of Kafka is kept in this repository)
# together with Oracle.java and the SLF4J stub into the class directory OUT.
set -eu
src=$1 out=$2
gc=$src/group-coordinator/src/main/java/org/apache/kafka/coordinator/group
api=$src/group-coordinator/group-coordinator-api/src/main/java/org/apache/kafka/coordinator/group/api/assignor
here=$(dirname "$0")
# Kafka 4.2 and later annotate the assignor API with InterfaceAudience.
annotation=$src/clients/src/main/java/org/apache/kafka/common/annotation/InterfaceAudience.java
mkdir -p "$out"
javac -nowarn -d "$out" \
	"$src/clients/src/main/java/org/apache/kafka/common/Uuid.java" \
	"$src/clients/src/main/java/org/apache/kafka/common/KafkaException.java" \
	"$src/clients/src/main/java/org/apache/kafka/common/errors/ApiException.java" \
	$(test -f "$annotation" && echo "$annotation") \
	"$src/server-common/src/main/java/org/apache/kafka/server/common/TopicIdPartition.java" \
	$(ls "$api"/*.java | grep -v ShareGroup) \
	"$gc/modern/MemberAssignmentImpl.java" \
	"$gc/assignor/AssignorHelpers.java" "$gc/assignor/RangeSet.java" "$gc/assignor/RangeAssignor.java" \
	"$gc/assignor/UniformAssignor.java" "$gc/assignor/UniformHomogeneousAssignmentBuilder.java" \
	"$gc/assignor/UniformHeterogeneousAssignmentBuilder.java" \
	"$here/stub/org/slf4j/Logger.java" "$here/stub/org/slf4j/LoggerFactory.java" \
	"$here/Oracle.java"
