package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.SecurityConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ssl.principal.mapping.rules}: Kafka's rule syntax and its first-rule-wins meaning. */
class SslPrincipalMapperTest {
  private static final String ALICE = "CN=Alice,OU=Eng,O=Example,C=DE";

  @Test
  void defaultKeepsTheSubjectAsItIs() {
    assertEquals(ALICE, SslPrincipalMapper.DEFAULT.name(ALICE));
    assertEquals(ALICE, SslPrincipalMapper.parse(" DEFAULT ").name(ALICE));
  }

  @Test
  void aRuleReplacesTheWholeMatchWithItsGroupsAndChangesCase() {
    assertEquals(
        "alice", SslPrincipalMapper.parse("RULE:^CN=(.*?),OU=(.*?),O=.*$/$1/L").name(ALICE));
    assertEquals(
        "ALICE@ENG", SslPrincipalMapper.parse("RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/U").name(ALICE));
    assertEquals(
        "Alice",
        SslPrincipalMapper.parse("RULE:^CN=([^,]*),.*$/$1/").name(ALICE),
        "no case change");
    // $0 is the whole match; a literal $ and a slash are escaped.
    assertEquals("u/" + ALICE + "$", SslPrincipalMapper.parse("RULE:^.*$/u\\/$0\\$/").name(ALICE));
  }

  @Test
  void theFirstRuleThatMatchesTheWholeSubjectWins() {
    SslPrincipalMapper m =
        SslPrincipalMapper.parse(
            "RULE:^CN=(.*?),OU=Ops,.*$/ops-$1/, RULE:^CN=([^,]+),OU=(Eng|Sales),.*$/$1/L,DEFAULT");
    assertEquals("alice", m.name(ALICE)); // a comma inside a rule's pattern belongs to it
    assertEquals("ops-bob", m.name("CN=bob,OU=Ops,O=Example"));
    assertEquals("CN=carol", m.name("CN=carol"), "DEFAULT catches the rest");
    // A pattern must match all of the subject: "CN=Alice" alone is not a match of ALICE.
    assertNull(SslPrincipalMapper.parse("RULE:CN=Alice/x/").name(ALICE));
  }

  @Test
  void aSubjectNoRuleNamesHasNoName() {
    SslPrincipalMapper m = SslPrincipalMapper.parse("RULE:^CN=([a-z]+)$/$1/");
    assertNull(m.name(ALICE));
    assertNull(m.name("CN=Upper"));
    assertEquals("lower", m.name("CN=lower"));
    // The first rule that applies decides, and an empty name is no name.
    assertNull(SslPrincipalMapper.parse("RULE:^CN=(x*),.*$/$1/,DEFAULT").name("CN=,O=o"));
  }

  @Test
  void rulesThatAreNotRulesAreRefusedSayingWhere() {
    assertRefused("", "names no rule");
    assertRefused("DEFAULT,", "ends with a comma");
    assertRefused("RULE:^CN=(.*)$/$1", "'RULE:^CN=(.*)$/$1' where a rule was expected");
    assertRefused("DEFAULT, nonsense", "'nonsense' where a rule was expected");
    assertRefused("RULE:^CN=(.*$/$1/", "not a regular expression");
    assertRefused("RULE:^CN=(.*)$/$2/", "names no group");
    assertRefused("RULE:^CN=.*$/x$/", "names no group");
    assertRefused("RULE:^CN=(.*)$/$1\\/", "where a rule was expected");
  }

  @Test
  void theNodeRefusesBadRulesAtStartNamingTheKey() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> SecurityConfig.DEF.parse(Map.of("ssl.principal.mapping.rules", "RULE:x/$1/")));
    assertTrue(e.getMessage().contains("ssl.principal.mapping.rules"), e.getMessage());
    assertTrue(e.getMessage().contains("names no group"), e.getMessage());
    Config ok =
        SecurityConfig.DEF.parse(Map.of("ssl.principal.mapping.rules", "RULE:^CN=(.*)$/$1/"));
    assertEquals("RULE:^CN=(.*)$/$1/", ok.get(SecurityConfig.SSL_PRINCIPAL_MAPPING_RULES));
  }

  private static void assertRefused(String rules, String why) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SslPrincipalMapper.parse(rules));
    assertTrue(e.getMessage().contains(why), rules + " -> " + e.getMessage());
  }
}
