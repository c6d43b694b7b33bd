package dev.spool.coordinator.group.runtime;

import dev.spool.coordinator.group.core.TopicsView;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** The topics of a metadata image as a shard sees them; made per operation, on its thread. */
final class ImageTopicsView implements TopicsView {
  private final MetadataImage image;
  private List<String> names;

  ImageTopicsView(MetadataImage image) {
    this.image = image;
  }

  @Override
  public int partitionCount(String topic) {
    TopicImage t = image.topic(topic);
    return t == null || OffsetsTopic.isInternal(topic) ? -1 : t.partitions().size();
  }

  @Override
  public Collection<String> topicNames() {
    if (names == null) {
      List<String> out = new ArrayList<>();
      for (TopicImage t : image.topics()) {
        if (!OffsetsTopic.isInternal(t.name())) {
          out.add(t.name());
        }
      }
      names = out;
    }
    return names;
  }
}
