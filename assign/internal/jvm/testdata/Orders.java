// Orders prints, for each line "KIND ARG...", the iteration order a real
// JDK gives the collection that line describes. It produced the "want"
// lines of orders.txt (see README.md):
//
//	java -cp <classes of Kafka's Uuid> Orders.java < cases > orders.out
//
// KIND is one of
//
//	stringmap K...      new HashMap<String, Integer>(), each key put in turn
//	stringset K...      new HashSet<String>(Arrays.asList(K...))
//	intset V...         new HashSet<Integer>(Arrays.asList(V...))
//	uuidmap U...        new HashMap<Uuid, Integer>(), each Uuid put in turn
//	uuidset N U...      new HashSet<Uuid>(c), c a collection of size() N
//	                    iterating U...
//
// and the output is the elements, in iteration order, space separated.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;

public class Orders {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] f = line.split(" ");
            List<String> a = Arrays.asList(f).subList(1, f.length);
            Collection<?> keys;
            switch (f[0]) {
                case "stringmap": {
                    Map<String, Integer> m = new HashMap<>();
                    for (String k : a) m.put(k, 0);
                    keys = m.keySet();
                    break;
                }
                case "stringset":
                    keys = new HashSet<>(a);
                    break;
                case "intset": {
                    List<Integer> v = new ArrayList<>();
                    for (String s : a) v.add(Integer.parseInt(s));
                    keys = new HashSet<>(v);
                    break;
                }
                case "uuidmap": {
                    Map<Uuid, Integer> m = new HashMap<>();
                    for (String k : a) m.put(Uuid.fromString(k), 0);
                    keys = m.keySet();
                    break;
                }
                case "uuidset": {
                    int size = Integer.parseInt(a.get(0));
                    List<Uuid> u = new ArrayList<>();
                    for (String s : a.subList(1, a.size())) u.add(Uuid.fromString(s));
                    keys = new HashSet<>(new AbstractCollection<Uuid>() {
                        @Override public Iterator<Uuid> iterator() { return u.iterator(); }
                        @Override public int size() { return size; }
                    });
                    break;
                }
                default:
                    throw new IllegalArgumentException(f[0]);
            }
            StringBuilder b = new StringBuilder();
            for (Object k : keys) {
                if (b.length() > 0) b.append(' ');
                b.append(k);
            }
            System.out.println(b);
        }
    }
}
