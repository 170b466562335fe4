package io.pgrepl.benchmarks.connect.soak;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Writes one transactional batch straight to a partition leader, without the transaction coordinator
 * ever adding the partition to the producer's transaction: the partition then holds an open transaction
 * nobody will end, a hanging transaction made on demand. No real producer does this (it adds the
 * partition first, or the broker does it for it); a real broker accepts it when
 * {@code transaction.partition.verification.enable=false}, as brokers before Kafka 3.6 did, which is how
 * such transactions arose in the field.
 */
final class FakeTransactionalWriter {
    private FakeTransactionalWriter() {}

    /** Writes one record to {@code tp} in an open transaction of {@code producerId}/{@code epoch} (sequence 0 unless given). */
    static void write(String hostPort, TopicPartition tp, long producerId, short epoch, int sequence) throws Exception {
        // The last produce version before transactions v2: the write carries no implicit "add to transaction".
        short version = ProduceRequest.LAST_STABLE_VERSION_BEFORE_TRANSACTION_V2;
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, epoch, sequence,
                new SimpleRecord("forged".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(tp.topic()).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(tp.partition()).setRecords(records))));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                .setTransactionalId("fake-writer").setTopicData(topics);
        RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, version, "fake-writer", 1);
        ByteBuffer request = new ProduceRequest.Builder(version, version, data).build(version).serializeWithHeader(header);
        String[] hp = hostPort.substring(hostPort.lastIndexOf('/') + 1).split(":");
        try (Socket s = new Socket(hp[0], Integer.parseInt(hp[1]))) {
            s.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(request.remaining());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            ByteBuffer b = ByteBuffer.wrap(body);
            ResponseHeader.parse(b, ApiKeys.PRODUCE.responseHeaderVersion(version));
            Map<Errors, Integer> errors = AbstractResponse.parseResponse(ApiKeys.PRODUCE, new ByteBufferAccessor(b), version)
                    .errorCounts();
            if (!errors.keySet().equals(java.util.Set.of(Errors.NONE))) {
                throw new IllegalStateException("the broker refused the forged write: " + errors);
            }
        }
    }
}
