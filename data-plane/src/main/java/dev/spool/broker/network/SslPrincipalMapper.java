package dev.spool.broker.network;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code ssl.principal.mapping.rules}, Kafka's syntax and meaning: the name of a mutual-TLS client
 * is taken from its certificate's subject (RFC 2253, as {@code CN=alice,OU=eng,O=example}) by the
 * first rule that applies, and the principal is {@code User:<name>}.
 *
 * <ul>
 *   <li>{@code DEFAULT} applies to every subject and keeps it as it is.
 *   <li>{@code RULE:pattern/replacement/} applies when the Java regular expression matches the
 *       whole subject, and gives the replacement with {@code $1}, {@code $2}, ... the pattern's
 *       groups; {@code /L} or {@code /U} at the end lower- or upper-cases the result. Within
 *       pattern and replacement, {@code \/} is a slash and {@code \\} a backslash.
 * </ul>
 *
 * Rules are separated by commas (a comma inside a rule's pattern or replacement belongs to it). A
 * subject no rule applies to, or the first that applies turns into an empty name, has no name: the
 * connection is refused. Unlike Kafka, a replacement that names a group its pattern does not have
 * is refused when the rules are read rather than on a client's first request. Immutable; any
 * thread.
 */
public final class SslPrincipalMapper {
  /** Kafka's default: the subject as it is. */
  public static final String DEFAULT_RULES = "DEFAULT";

  // One rule: DEFAULT, or RULE:<pattern>/<replacement>/<L|U|nothing>, where pattern and
  // replacement are runs of escaped characters or characters other than '\' and '/'.
  private static final String RULE =
      "(DEFAULT)|RULE:((?:\\\\.|[^\\\\/])*)/((?:\\\\.|[^\\\\/])*)/([LU]?)";
  private static final Pattern ONE_RULE = Pattern.compile("\\s*(?:" + RULE + ")\\s*(,|$)");

  /** The mapper of {@link #DEFAULT_RULES}. */
  public static final SslPrincipalMapper DEFAULT =
      parse(DEFAULT_RULES); // after the patterns it needs

  private final List<Rule> rules;
  private final String text;

  private SslPrincipalMapper(List<Rule> rules, String text) {
    this.rules = rules;
    this.text = text;
  }

  /**
   * Reads {@code rules}; throws {@link IllegalArgumentException} naming the first part that is not
   * a rule (and why: an unreadable regular expression, a group the pattern does not have).
   */
  public static SslPrincipalMapper parse(String rules) {
    String all = rules.trim();
    if (all.isEmpty()) {
      throw new IllegalArgumentException("names no rule (DEFAULT keeps the subject as it is)");
    }
    List<Rule> parsed = new ArrayList<>();
    Matcher m = ONE_RULE.matcher(all);
    int at = 0;
    while (at < all.length()) {
      m.region(at, all.length());
      if (!m.lookingAt()) {
        throw new IllegalArgumentException(
            "has '"
                + all.substring(at).trim()
                + "' where a rule was expected (DEFAULT or RULE:pattern/replacement/[L|U])");
      }
      parsed.add(m.group(1) != null ? Rule.DEFAULT : Rule.of(m.group(2), m.group(3), m.group(4)));
      at = m.end();
      if (m.group(5).equals(",") && at == all.length()) {
        throw new IllegalArgumentException("ends with a comma");
      }
    }
    return new SslPrincipalMapper(List.copyOf(parsed), all);
  }

  /**
   * The name of the client whose certificate has {@code subject}, or null: no rule applies, or the
   * first that does gives an empty name.
   */
  public String name(String subject) {
    for (Rule r : rules) {
      String name = r.apply(subject);
      if (name != null) {
        return name.isEmpty() ? null : name; // the first rule that applies decides
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return text;
  }

  /** One rule; {@link #DEFAULT} has no pattern. */
  private record Rule(Pattern pattern, List<Object> replacement, char caseChange) {
    static final Rule DEFAULT = new Rule(null, List.of(), ' ');

    static Rule of(String pattern, String replacement, String caseChange) {
      Pattern p;
      try {
        p = Pattern.compile(pattern);
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(
            "has the pattern '" + pattern + "', not a regular expression: " + e.getDescription());
      }
      List<Object> parts = replacement(replacement, p.matcher("").groupCount(), pattern);
      return new Rule(p, parts, caseChange.isEmpty() ? ' ' : caseChange.charAt(0));
    }

    /**
     * The replacement as literal strings and group numbers ({@link Integer}): {@code $n} is group n
     * (as many digits as still name a group, as Java's replacements read them), {@code \c} is c.
     */
    private static List<Object> replacement(String text, int groups, String pattern) {
      List<Object> parts = new ArrayList<>();
      StringBuilder literal = new StringBuilder();
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '\\') {
          literal.append(text.charAt(++i)); // the rule syntax pairs every backslash with a char
        } else if (c == '$') {
          int start = i + 1;
          int end = start;
          while (end < text.length()
              && Character.isDigit(text.charAt(end))
              && Integer.parseInt(text.substring(start, end + 1)) <= groups) {
            end++;
          }
          if (end == start) {
            throw new IllegalArgumentException(
                "has the replacement '"
                    + text
                    + "', whose $ at "
                    + i
                    + " names no group of '"
                    + pattern
                    + "' (it has "
                    + groups
                    + "; a literal $ is \\$)");
          }
          if (!literal.isEmpty()) {
            parts.add(literal.toString());
            literal.setLength(0);
          }
          parts.add(Integer.parseInt(text.substring(start, end)));
          i = end - 1;
        } else {
          literal.append(c);
        }
      }
      if (!literal.isEmpty()) {
        parts.add(literal.toString());
      }
      return List.copyOf(parts);
    }

    String apply(String subject) {
      if (pattern == null) {
        return subject;
      }
      Matcher m = pattern.matcher(subject);
      if (!m.matches()) {
        return null;
      }
      StringBuilder out = new StringBuilder();
      for (Object part : replacement) {
        if (part instanceof Integer g) {
          String group = m.group(g);
          out.append(group == null ? "" : group);
        } else {
          out.append((String) part);
        }
      }
      String name = out.toString();
      return switch (caseChange) {
        case 'L' -> name.toLowerCase(Locale.ENGLISH);
        case 'U' -> name.toUpperCase(Locale.ENGLISH);
        default -> name;
      };
    }
  }
}
