#!/usr/bin/env bash
# A Kafka broker of its own for the test suites (issue 32): Apache Kafka's own jars, resolved from Maven
# Central with Maven (the only site the machines reach: never a Kafka tarball), run as one KRaft process that
# is both broker and controller, on free loopback ports, with a small heap. Java 17 (Debian's
# openjdk-17-jre-headless) is installed when `java` is missing.
#
#   tools/ci/kafka.sh start [DIR]   starts it; prints KAFKA_BROKERS=127.0.0.1:<port> on its last line
#   tools/ci/kafka.sh stop  [DIR]   kills it and removes DIR
#   tools/ci/kafka.sh kill  DIR     kill -9, keeping DIR: a crash (the relay's crash spec)
#   tools/ci/kafka.sh restart DIR   starts the killed broker again on its log and its ports
#   tools/ci/kafka.sh version       prints KAFKA_VERSION
#
# DIR (the KRaft log, the broker's config, its output and pid) defaults to ${CIP_KAFKA_DIR:-/tmp/cip-kafka}.
# The jars are kept outside the repository, in KAFKA_CACHE_DIR (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/cip-tools/kafka-<version>): about 20 s to resolve on a new machine with an
# empty ~/.m2, nothing after. The classpath is kafka_2.13 and its runtime dependencies, plus the logging
# binding Kafka's own distribution ships (slf4j-reload4j + reload4j): without one, slf4j drops every line.
#
# Broker settings, as the adapters and suites need them (libs/shared/eventing/src/kafka):
# - auto.create.topics.enable=false: the buses create their topics with their partition count (a typo must not
#   create a topic with the broker's count); num.partitions=6 is KafkaMessageBus's default all the same.
# - group.initial.rebalance.delay.ms is left at Kafka's default (3 s), as in production: the suites cope.
# - Internal topics (offsets, transactions) with replication factor 1: one broker.
# - A 3 s broker session (default 9 s): a broker restarted after kill -9 is registered again only once its
#   previous session expired (the relay's crash spec restarts one).
set -euo pipefail

# The one Kafka version of the project. docker-compose.yml's and .github/workflows/distributed.yml's
# `apache/kafka:<version>` image tags are checked against it by tools/ci/kafka-version.unit.spec.ts.
KAFKA_VERSION=3.9.0
SCALA_VERSION=2.13
# The logging binding of Kafka 3.9's distribution (its libs/ directory).
SLF4J_VERSION=1.7.36
RELOAD4J_VERSION=1.2.25
HEAP=${KAFKA_HEAP:--Xms128m -Xmx384m}

command=${1:-}
dir=${2:-${CIP_KAFKA_DIR:-/tmp/cip-kafka}}
cache_dir="${KAFKA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cip-tools/kafka-${KAFKA_VERSION}}"

ensure_java() {
  if ! command -v java >/dev/null 2>&1; then
    echo "== install Java 17 (Debian openjdk-17-jre-headless) for the Kafka broker" >&2
    export DEBIAN_FRONTEND=noninteractive
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
  fi
}

# Resolves the jars into $cache_dir/libs once; `complete` marks a finished copy.
ensure_jars() {
  [ -f "$cache_dir/complete" ] && return 0
  if ! command -v mvn >/dev/null 2>&1; then
    echo "== install maven (Debian) to resolve Kafka's jars" >&2
    export DEBIAN_FRONTEND=noninteractive
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq --no-install-recommends maven >/dev/null
  fi
  echo "== resolve org.apache.kafka:kafka_${SCALA_VERSION}:${KAFKA_VERSION} from Maven Central into $cache_dir" >&2
  local work
  work=$(mktemp -d)
  cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cip.ci</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_${SCALA_VERSION}</artifactId>
      <version>${KAFKA_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>${SLF4J_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>ch.qos.reload4j</groupId>
      <artifactId>reload4j</artifactId>
      <version>${RELOAD4J_VERSION}</version>
    </dependency>
  </dependencies>
</project>
EOF
  if ! mvn -B -q -f "$work/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$work/libs" >"$work/mvn.log" 2>&1; then
    cat "$work/mvn.log" >&2
    rm -rf "$work"
    echo "kafka.sh: could not resolve Kafka ${KAFKA_VERSION} from Maven Central" >&2
    exit 1
  fi
  mkdir -p "$cache_dir"
  rm -rf "$cache_dir/libs"
  # Moved into place in one step: an interrupted run leaves no half-filled classpath marked complete.
  mv "$work/libs" "$cache_dir/libs"
  rm -rf "$work"
  touch "$cache_dir/complete"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

running() {
  [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null
}

# Until the broker has started (registered with its controller, unfenced: what kafkajs' admin and consumers
# need) and answers an ApiVersions request on its client port, as kafka-broker-api-versions.sh asks it.
wait_until_ready() {
  local port=$1 deadline=$((SECONDS + 90))
  while [ $SECONDS -lt $deadline ]; do
    if ! running; then
      tail -50 "$dir/server.log" >&2 || true
      echo "kafka.sh: the broker exited while starting (log above, $dir/server.log)" >&2
      exit 1
    fi
    if node -e '
      const net = require("net");
      // ApiVersions v0 (api key 18), correlation id 1, client id "ci": any broker that has started answers it.
      const body = Buffer.from([0, 18, 0, 0, 0, 0, 0, 1, 0, 2, 99, 105]);
      const size = Buffer.alloc(4); size.writeInt32BE(body.length);
      const socket = net.connect(Number(process.argv[1]), "127.0.0.1", () => socket.write(Buffer.concat([size, body])));
      socket.setTimeout(2000, () => process.exit(1));
      socket.on("error", () => process.exit(1));
      socket.on("data", (d) => process.exit(d.length >= 10 && d.readInt16BE(8) === 0 ? 0 : 1));
    ' "$port" 2>/dev/null && broker_started; then
      return 0
    fi
    sleep 0.5
  done
  tail -50 "$dir/server.log" >&2 || true
  echo "kafka.sh: the broker did not answer on 127.0.0.1:$port in 90 s" >&2
  kill -9 "$(cat "$dir/pid")" 2>/dev/null || true
  exit 1
}

# BrokerServer logs this once it is unfenced and its request handlers serve clients.
broker_started() {
  grep -q "Transition from STARTING to STARTED" "$dir/server.log" 2>/dev/null
}

# $HEAP unquoted: it holds several options. C1 only and the serial collector: a quick start on a small heap.
# shellcheck disable=SC2206
java_command=(java $HEAP -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
  "-Dlog4j.configuration=file:$dir/log4j.properties" -cp "$cache_dir/libs/*")

# Runs the broker on $dir's config, until it serves clients. A restart keeps the previous run's output in
# server.log.1. setsid: the broker outlives this script and gets no signal meant for the shell that started it.
launch() {
  [ -f "$dir/server.log" ] && mv "$dir/server.log" "$dir/server.log.1"
  setsid bash "$0" run "$dir" >"$dir/server.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  wait_until_ready "$(cat "$dir/port")"
}

case "$command" in
  start)
    ensure_java
    ensure_jars
    if running && [ -f "$dir/port" ]; then
      echo "KAFKA_BROKERS=127.0.0.1:$(cat "$dir/port")"
      exit 0
    fi
    rm -rf "$dir"
    mkdir -p "$dir/data"
    port=$(free_port)
    controller_port=$(free_port)
    while [ "$controller_port" = "$port" ]; do controller_port=$(free_port); done
    cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controller_port}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller_port}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=${dir}/data
num.partitions=6
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
log.cleaner.dedupe.buffer.size=8388608
broker.session.timeout.ms=3000
broker.heartbeat.interval.ms=500
EOF
    cat >"$dir/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
EOF
    # A random cluster id: every start is a new, empty cluster.
    cluster_id=$("${java_command[@]}" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
    "${java_command[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" \
      >"$dir/format.log" 2>&1 || {
      cat "$dir/format.log" >&2
      exit 1
    }
    echo "$port" >"$dir/port"
    launch
    echo "KAFKA_BROKERS=127.0.0.1:$port"
    ;;
  kill)
    if running; then
      pid=$(cat "$dir/pid")
      kill -9 "$pid"
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    ;;
  restart)
    if ! running; then
      [ -f "$dir/server.properties" ] || { echo "kafka.sh: no broker in $dir to restart" >&2; exit 1; }
      ensure_jars
      launch
    fi
    echo "KAFKA_BROKERS=127.0.0.1:$(cat "$dir/port")"
    ;;
  stop)
    if running; then
      pid=$(cat "$dir/pid")
      kill -9 "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -rf "$dir"
    ;;
  run)
    # The broker itself, in the foreground (what `launch` starts in the background).
    exec "${java_command[@]}" kafka.Kafka "$dir/server.properties"
    ;;
  version)
    echo "$KAFKA_VERSION"
    ;;
  *)
    echo "usage: $0 start|stop [DIR] | kill|restart DIR | version" >&2
    exit 2
    ;;
esac
