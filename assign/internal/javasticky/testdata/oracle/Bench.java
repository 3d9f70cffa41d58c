package org.apache.kafka.clients.consumer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;

/**
 * Times Kafka's own StickyAssignor or CooperativeStickyAssignor on the
 * groups of BenchmarkJavaSticky, in this JVM, to set the Go benchmark beside
 * them on the same machine at the same time:
 *
 *   java -cp CLASSES org.apache.kafka.clients.consumer.Bench sticky|cooperative-sticky RUNS LIMIT_SECONDS < groups.jsonl
 *
 * groups.jsonl is what TestBenchShapes writes (JAVASTICKY_BENCH_GROUPS), one
 * group per line in the JSON contract, each named shape/strategy/churn. Each
 * group is built once as Oracle builds it (the leader's GroupSubscription and
 * Cluster), outside the timed calls; every call gets a fresh assignor, as a
 * leader does. The JIT is warmed with as many untimed calls as timed ones, and
 * the median is printed in milliseconds: of the wall time, of the CPU time
 * of the whole JVM during the call (the assigning thread, the collector's
 * and the compiler's threads) and of the assigning thread alone, so that
 * on a loaded machine the work can be set beside the Go benchmark's CPU
 * time per call. A call still running after
 * LIMIT_SECONDS is reported as not finished and ends the run (the JVM cannot
 * stop it), so put such groups last.
 */
public final class Bench {
    public static void main(String[] args) throws Exception {
        boolean cooperative = args[0].equals("cooperative-sticky");
        int runs = Integer.parseInt(args[1]);
        long limitNanos = (long) (Double.parseDouble(args[2]) * 1e9);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            @SuppressWarnings("unchecked")
            Map<String, Object> g = (Map<String, Object>) new Oracle.Json(line).value();
            String name = String.valueOf(g.get("name"));
            Oracle.Group group = new Oracle.Group(g, cooperative, new ArrayList<>());
            GroupSubscription subscription = new GroupSubscription(group.subscriptions);
            long[] t = new long[runs], cpu = new long[runs], threadCpu = new long[runs];
            for (int i = 0; i < 2 * runs; i++) {
                long took = call(group, subscription, cooperative, limitNanos);
                if (took < 0) {
                    System.out.printf("%s did-not-finish >%.0f s%n", name, limitNanos / 1e9);
                    System.out.flush();
                    System.exit(0);
                }
                if (i == 0 && took * 2 * runs > 4 * limitNanos) {
                    // A slow group: its one call is warm-up enough.
                    t = new long[] {took};
                    cpu = new long[] {lastCpu[0]};
                    threadCpu = new long[] {lastCpu[1]};
                    break;
                }
                if (i >= runs) {
                    t[i - runs] = took;
                    cpu[i - runs] = lastCpu[0];
                    threadCpu[i - runs] = lastCpu[1];
                }
            }
            Arrays.sort(t);
            Arrays.sort(cpu);
            Arrays.sort(threadCpu);
            System.out.printf("%s %.3f ms (median of %d) cpu %.3f ms thread-cpu %.3f ms%n", name, t[t.length / 2] / 1e6, t.length,
                    cpu[cpu.length / 2] / 1e6, threadCpu[threadCpu.length / 2] / 1e6);
            System.out.flush();
        }
    }

    /**
     * The time of one assign call on a fresh assignor, timed in its own
     * thread (so that starting the thread is not counted); -1 when it
     * outlives the limit.
     */
    /** The JVM's and the assigning thread's CPU time during the last call. */
    static final long[] lastCpu = new long[2];

    static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static long call(Oracle.Group group, GroupSubscription subscription, boolean cooperative, long limitNanos) throws InterruptedException {
        ConsumerPartitionAssignor assignor = cooperative ? new CooperativeStickyAssignor() : new StickyAssignor();
        List<RuntimeException> thrown = new ArrayList<>();
        long[] took = {-1};
        Thread th = new Thread(() -> {
            try {
                java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                long cpu0 = processCpu(), thread0 = mx.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                assignor.assign(group.cluster, subscription);
                took[0] = System.nanoTime() - start;
                lastCpu[1] = mx.getCurrentThreadCpuTime() - thread0;
                lastCpu[0] = processCpu() - cpu0;
            } catch (RuntimeException e) {
                thrown.add(e);
            }
        });
        th.setDaemon(true);
        th.start();
        th.join(limitNanos / 1_000_000);
        if (th.isAlive()) return -1;
        if (!thrown.isEmpty()) throw thrown.get(0);
        return took[0];
    }
}
