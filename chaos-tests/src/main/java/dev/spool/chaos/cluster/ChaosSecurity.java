package dev.spool.chaos.cluster;

import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.protocol.AclMessages;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.CreateAclsResponse;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.testing.ClientSecurity;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.probe.NodeProbe;
import dev.spool.testing.process.NodeAddresses;
import dev.spool.testing.process.NodeNetwork;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A chaos cluster with security on (docs/security.md): mutual TLS on every node's Spool listener
 * (so on replication too) and on the metadata quorum ({@code CONTROLLER:SSL}), the built-in
 * authorizer, and clients that are who their certificate says.
 *
 * <ul>
 *   <li><b>Key material</b> is made per run in {@code keysDir} by {@link TestCertificates}: a
 *       throwaway CA, one node certificate every node presents ({@link #BROKER_PRINCIPAL}, a super
 *       user, so followers may fetch as replicas) naming every address the network laid out (the
 *       quorum checks host names), and two client certificates of the same CA: the workload's and
 *       an intruder's. They are made when the cluster lays out its network ({@link #securing}),
 *       since the addresses are known only then; the configs name the files before they exist.
 *   <li><b>The workload</b> is {@link #WORKLOAD_PRINCIPAL}, not a super user: {@link #grant} gives
 *       it exactly READ, WRITE and DESCRIBE on its topics through CreateAcls, so every produce,
 *       fetch, metadata and list-offsets request it makes under faults goes through the ACLs.
 *   <li><b>The intruder</b> ({@link #INTRUDER_PRINCIPAL}) holds a certificate the brokers trust but
 *       no ACL: everything it asks must be refused, whatever the faults; so must a client without a
 *       certificate ({@link #noCertificateClient}), at the handshake.
 * </ul>
 *
 * <p>The harness's own clients (admin, probes) present the node certificate and so are super users.
 * Thread-safe: the key material is made once, by the thread that starts the cluster.
 */
public final class ChaosSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosSecurity.class);

  /** Kafka's KRaft authorizer name, which turns on Spool's built-in authorizer. */
  public static final String AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

  /** Every node's certificate subject ({@link TestCertificates}' node certificate). */
  public static final String BROKER_PRINCIPAL = "User:CN=localhost";

  public static final String WORKLOAD_PRINCIPAL = "User:CN=chaos-workload";
  public static final String INTRUDER_PRINCIPAL = "User:CN=chaos-intruder";

  /** The operations the workload needs on each of its topics, and nothing more. */
  static final List<AclOperation> WORKLOAD_OPERATIONS =
      List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);

  private static final String WORKLOAD_STORE = "chaos-workload";
  private static final String INTRUDER_STORE = "chaos-intruder";

  private final TestCertificates certs;
  private final Path dir;

  private ChaosSecurity(Path dir) {
    this.dir = dir;
    this.certs = TestCertificates.in(dir);
  }

  /** Security whose key material will live in {@code keysDir} (made by {@link #securing}). */
  public static ChaosSecurity in(Path keysDir) {
    return new ChaosSecurity(keysDir);
  }

  /** The node config keys: TLS everywhere, client certificates required, the authorizer. */
  public Map<String, String> nodeConfig() {
    Map<String, String> p = new LinkedHashMap<>(certs.nodeConfig("required", "SPOOL"));
    p.put("listener.security.protocol.map", "SPOOL:SSL,CONTROLLER:SSL");
    p.put("authorizer.class.name", AUTHORIZER);
    p.put("super.users", BROKER_PRINCIPAL);
    return p;
  }

  /** The workload's client keys: TLS, presenting the workload's certificate. */
  public Map<String, String> workloadClient() {
    return certs.clientConfig(certs.truststore(), certs.keystorePath(WORKLOAD_STORE));
  }

  /** The intruder's client keys: TLS, presenting a trusted certificate that no ACL names. */
  public Map<String, String> intruderClient() {
    return certs.clientConfig(certs.truststore(), certs.keystorePath(INTRUDER_STORE));
  }

  /** Client keys that trust the brokers but present no certificate: refused at the handshake. */
  public Map<String, String> noCertificateClient() {
    return certs.clientConfig(certs.truststore(), (Path) null);
  }

  /**
   * {@code network}, making the key material once it has laid out the nodes: the node certificate
   * names every address the nodes bind or advertise.
   */
  public NodeNetwork securing(NodeNetwork network) {
    return new NodeNetwork() {
      @Override
      public Map<Integer, NodeAddresses> layout(List<Integer> nodes) throws IOException {
        Map<Integer, NodeAddresses> addrs = network.layout(nodes);
        makeKeys(addrs);
        return addrs;
      }

      @Override
      public List<String> launchPrefix(int node) {
        return network.launchPrefix(node);
      }

      @Override
      public List<String> notes() {
        return network.notes();
      }

      @Override
      public void close() {
        network.close();
      }
    };
  }

  private void makeKeys(Map<Integer, NodeAddresses> addrs) throws IOException {
    TreeSet<String> ips = new TreeSet<>();
    for (NodeAddresses a : addrs.values()) {
      for (InetSocketAddress s : List.of(a.broker(), a.quorum(), a.client())) {
        ips.add(s.getAddress().getHostAddress());
      }
    }
    ips.remove("127.0.0.1");
    long t0 = System.nanoTime();
    TestCertificates made = TestCertificates.create(Files.createDirectories(dir), ips);
    made.keystore(WORKLOAD_STORE, "chaos-workload", true);
    made.keystore(INTRUDER_STORE, "chaos-intruder", true);
    LOG.info(
        "TLS key material in {} (node certificate also for {}) made in {} ms",
        dir,
        ips,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  /** The ACLs that let {@link #WORKLOAD_PRINCIPAL} write, read and describe {@code topics}. */
  public static List<Acl> workloadAcls(List<String> topics) {
    List<Acl> acls = new ArrayList<>();
    for (String topic : topics) {
      for (AclOperation op : WORKLOAD_OPERATIONS) {
        acls.add(
            AclMessages.toMessage(
                "",
                new AclBinding(
                    AclResourceType.TOPIC,
                    topic,
                    AclBinding.PatternType.LITERAL,
                    WORKLOAD_PRINCIPAL,
                    AclBinding.WILDCARD,
                    op,
                    AclBinding.Permission.ALLOW)));
      }
    }
    return acls;
  }

  /**
   * Grants the workload its ACLs on {@code topics} through CreateAcls (as {@code spool acl add}
   * would), then waits until every serving broker answers the workload's own metadata request for
   * them: each broker's image has the ACLs (they are one controller write) before the workload
   * starts.
   */
  public void grant(ProcessCluster cluster, List<String> topics, Duration timeout)
      throws IOException {
    List<Acl> acls = workloadAcls(topics);
    CreateAclsResponse r;
    try {
      r = cluster.admin().createAcls(acls).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new IOException("cannot create the workload's ACLs: " + e, e);
    }
    for (int i = 0; i < r.getResultsCount(); i++) {
      CreateAclsResponse.Result res = r.getResults(i);
      if (res.getErrorCodeValue() != 0) {
        throw new IOException(
            "CreateAcls refused "
                + acls.get(i)
                + ": "
                + res.getErrorCode()
                + " "
                + res.getErrorMessage());
      }
    }
    SSLSocketFactory tls = ClientSecurity.socketFactory(workloadClient());
    Map<Integer, String> last = new TreeMap<>();
    ProcessCluster.await(
        "every broker authorizes " + WORKLOAD_PRINCIPAL + " on " + topics,
        timeout,
        () -> cluster.brokers().stream().allMatch(n -> authorized(cluster, n, tls, topics, last)),
        last::toString);
    LOG.info("granted {} ACLs to {} on {}", acls.size(), WORKLOAD_PRINCIPAL, topics);
  }

  private static boolean authorized(
      ProcessCluster cluster,
      int node,
      SSLSocketFactory tls,
      List<String> topics,
      Map<Integer, String> last) {
    NodeProbe probe = new NodeProbe(cluster.addresses(node).broker(), 3_000, tls);
    try {
      MetadataResponse m = probe.metadata(topics);
      List<String> refused =
          m.getTopicsList().stream()
              .filter(t -> t.getErrorCodeValue() != 0)
              .map(t -> t.getName() + " " + t.getErrorCode())
              .toList();
      last.put(node, refused.isEmpty() ? "authorized" : refused.toString());
      return refused.isEmpty() && m.getTopicsCount() == topics.size();
    } catch (IOException e) {
      last.put(node, e.toString());
      return false;
    }
  }
}
