import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * Times Kafka's own KIP-848 assignors on assign/uniform_bench_test.go's
 * shapes, in this JVM, to set our benchmark beside them on the same machine
 * at the same time: java -cp CLASSES Bench [runs]. Groups are built through
 * Oracle.Spec from the same JSON contract, outside the timed calls; the JIT
 * is warmed with as many untimed runs as timed ones; it prints the median.
 * Beside the wall clock it prints the median call's CPU time on the calling
 * thread (ThreadMXBean), which a loaded machine disturbs less; it leaves out
 * the collector's threads, so it favours Kafka against a Go figure that
 * counts the collector. A second argument, a regular expression, keeps the
 * cells whose "shape assignor churn" matches.
 */
public final class Bench {
    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        java.util.regex.Pattern only = java.util.regex.Pattern.compile(args.length > 1 ? args[1] : ".*");
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        int[][] shapes = {{1000, 1000, 100, 0}, {2000, 100, 10000, 0}, {1000, 2000, 0, 1}};
        for (int[] sh : shapes) {
            String name = sh[3] == 1 ? "hetero-" + sh[0] + "x" + sh[1] + "t" : "uniform-" + sh[0] + "x" + (sh[1] * sh[2]);
            for (PartitionAssignor a : new PartitionAssignor[]{new UniformAssignor(), new RangeAssignor()}) {
                Map<String, Object> fresh = group(sh, null, false);
                Oracle.Spec freshSpec = new Oracle.Spec(fresh);
                GroupAssignment first = a.assign(freshSpec, freshSpec);
                Oracle.Spec leave = new Oracle.Spec(group(sh, first, false));
                Oracle.Spec join = new Oracle.Spec(group(sh, first, true));
                for (Object[] c : new Object[][]{{"fresh", freshSpec}, {"leave1", leave}, {"join1", join}}) {
                    Oracle.Spec spec = (Oracle.Spec) c[1];
                    String cell = name + " " + a.name() + " " + c[0];
                    if (!only.matcher(cell).find()) continue;
                    long[] t = new long[runs], tc = new long[runs];
                    long procStart = 0;
                    for (int i = 0; i < 2 * runs; i++) {
                        if (i == runs) {
                            procStart = os.getProcessCpuTime();
                        }
                        long start = System.nanoTime(), startCPU = cpu.getCurrentThreadCpuTime();
                        a.assign(spec, spec);
                        if (i >= runs) {
                            tc[i - runs] = cpu.getCurrentThreadCpuTime() - startCPU;
                            t[i - runs] = System.nanoTime() - start;
                        }
                    }
                    double proc = (os.getProcessCpuTime() - procStart) / 1e6 / runs;
                    Arrays.sort(t);
                    Arrays.sort(tc);
                    System.out.printf("%s %.2f ms cpu %.2f ms process-cpu %.2f ms%n", cell, t[runs / 2] / 1e6, tc[runs / 2] / 1e6, proc);
                }
            }
        }
    }

    /**
     * The group of shape sh; with prev, its members hold prev and
     * consumer-new, holding nothing, replaces consumer-00000 (leave1) or,
     * with join, is added after the others (join1).
     */
    static Map<String, Object> group(int[] sh, GroupAssignment prev, boolean join) {
        int members = sh[0], topics = sh[1], parts = sh[2];
        boolean hetero = sh[3] == 1;
        Map<String, Object> g = new LinkedHashMap<>();
        Map<String, Object> counts = new LinkedHashMap<>();
        Map<String, Object> ids = new LinkedHashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        List<Object> all = new ArrayList<>();
        for (int i = 0; i < topics; i++) {
            String n = String.format("topic-%05d", i);
            Uuid id = new Uuid(n.hashCode() * 31L + 7, i + 1);
            counts.put(n, (long) (hetero ? 1 + (i * 7919) % 64 : parts));
            ids.put(n, id.toString());
            names.put(id, n);
            all.add(n);
        }
        g.put("topics", counts);
        g.put("topicIds", ids);
        List<Object> ms = new ArrayList<>();
        for (int j = 0; j < members; j++) {
            Map<String, Object> m = new LinkedHashMap<>();
            String id = String.format("consumer-%05d", j);
            List<Object> subs = all;
            if (hetero) {
                subs = new ArrayList<>();
                for (int i = 0; i < topics; i++) if ((i * 31 + j * 17) % 5 < 3) subs.add(all.get(i));
            }
            if (prev != null) {
                MemberAssignment ma = prev.members().get(id);
                Map<String, Object> owned = new LinkedHashMap<>();
                if (ma != null) {
                    for (Map.Entry<Uuid, Set<Integer>> e : ma.partitions().entrySet()) {
                        owned.put(names.get(e.getKey()), new ArrayList<Object>(e.getValue().stream().map(Long::valueOf).toList()));
                    }
                }
                if (j == 0 && !join) {
                    id = "consumer-new";
                    owned.clear();
                }
                m.put("owned", owned);
            }
            m.put("id", id);
            m.put("topics", subs);
            ms.add(m);
        }
        if (join) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("owned", new LinkedHashMap<String, Object>());
            m.put("id", "consumer-new");
            m.put("topics", ((Map<?, ?>) ms.get(0)).get("topics"));
            ms.add(m);
        }
        g.put("members", ms);
        return g;
    }
}
