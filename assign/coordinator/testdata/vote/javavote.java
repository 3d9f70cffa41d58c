// javavote prints, for the groups on standard input, what the Java group
// coordinator's ClassicGroup.selectProtocol computes, using the JDK's own
// java.util.HashMap and streams. It produced the expected outputs of
// java_hashmap.txt (JDK 17): java -Dfile.encoding=UTF-8 javavote.java < groups
//
// Input: one member per line, "memberId strategy strategy ...", a blank
// line after each group. Every member must share a strategy with all the
// others (this harness does not model refusals). Output per group: the
// candidates in String order, the tally in the HashMap's iteration order,
// and the winner. A group of one line "keys k1 k2 ..." instead puts the
// keys into a HashMap in that order and prints its iteration order.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class javavote {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        List<String[]> group = new ArrayList<>();
        for (String line; ; ) {
            line = in.readLine();
            if (line == null || line.isEmpty()) {
                if (!group.isEmpty()) out.print(select(group));
                group.clear();
                if (line == null) break;
                continue;
            }
            group.add(line.split(" "));
        }
    }

    static String select(List<String[]> group) {
        if (group.get(0)[0].equals("keys")) {
            Map<String, Integer> m = new HashMap<>();
            String[] keys = group.get(0);
            for (int i = 1; i < keys.length; i++) m.put(keys[i], i);
            return "order: " + String.join(" ", m.keySet()) + "\n";
        }
        // ClassicGroup keeps members in a HashMap by member id, and the
        // number of members supporting each protocol in another.
        Map<String, List<String>> members = new HashMap<>();
        Map<String, Integer> supported = new HashMap<>();
        for (String[] m : group) {
            List<String> protocols = Arrays.asList(m).subList(1, m.length);
            members.put(m[0], protocols);
            for (String p : protocols) supported.put(p, supported.getOrDefault(p, 0) + 1);
        }
        Set<String> candidates = new HashSet<>();
        supported.forEach((p, n) -> { if (n == members.size()) candidates.add(p); });

        Map<String, Integer> votes = new HashMap<>();
        for (List<String> protocols : members.values()) {
            String vote = protocols.stream().filter(candidates::contains).findFirst().get();
            votes.put(vote, votes.getOrDefault(vote, 0) + 1);
        }
        String winner = votes.entrySet().stream()
            .max(Comparator.comparingInt(Map.Entry::getValue))
            .map(Map.Entry::getKey).orElse(null);

        StringBuilder b = new StringBuilder("candidates:");
        for (String c : new TreeSet<>(candidates)) b.append(' ').append(c);
        b.append("\ntally:");
        votes.forEach((p, n) -> b.append(' ').append(p).append('=').append(n));
        return b.append("\nwinner: ").append(winner).append("\n").toString();
    }
}
