/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.datapath.io;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The UDP transport with batched system calls and segmentation offload: the contract of {@link UdpTransportTest}
 * (among it nothing allocated per datagram with alternating sources), and what batching adds: runs as one segmented
 * message, coalesced runs split back into datagrams, recvmmsg without segmentation, and the switch between single and
 * batched reads.
 */
class BatchedUdpTransportTest extends UdpTransportTest<BatchedUdpTransport>
{
    private static final int HEADER = 32;

    @BeforeAll
    static void nativeCallsBind()
    {
        assertNull(NativeDatagrams.unavailableReason(), "this build runs on Linux x86-64 with the sun.nio.ch export");
    }

    BatchedUdpTransport newTransport(final TransportSpec spec) throws IOException
    {
        return new BatchedUdpTransport(spec, 32, true);
    }

    void assertSendCalls(final long sendCalls, final int datagrams)
    {
        // two entropy sockets, each of whose runs leaves in one segmented message or a few sendmmsg calls
        assertTrue(sendCalls >= 2 && sendCalls < datagrams / 2, "send calls for " + datagrams + ": " + sendCalls);
    }

    private BatchedUdpTransport openWithoutSegmentation() throws IOException
    {
        final BatchedUdpTransport transport = new BatchedUdpTransport(
            new TransportSpec().planeAddresses(planeAddresses()).entropyCount(4), 8, false);
        transports.add(transport);
        return transport;
    }

    /**
     * Queue {@code count} datagrams of a header and a payload on one plane and entropy value, each tagged with its
     * index, and flush them.
     */
    private static void sendRun(
        final BatchedUdpTransport from, final int destination, final int entropy, final int count, final int payload)
    {
        final UnsafeBuffer header = new UnsafeBuffer(BufferUtil.allocateDirectAligned(HEADER, 64));
        final UnsafeBuffer body = new UnsafeBuffer(BufferUtil.allocateDirectAligned(count * payload, 64));
        for (int i = 0; i < count; i++)
        {
            header.putInt(0, i);
            body.setMemory(i * payload, payload, (byte)i);
            assertEquals(PacketTransport.SENT, from.send(destination, 0, entropy, header, 0, HEADER, body,
                i * payload, payload));
        }
        from.flush();
    }

    private static void assertRun(final List<byte[]> received, final int count, final int payload)
    {
        assertEquals(count, received.size());
        for (int i = 0; i < count; i++)
        {
            final byte[] datagram = received.get(i);
            assertEquals(HEADER + payload, datagram.length, "datagram " + i);
            assertEquals(i, new UnsafeBuffer(datagram).getInt(0), "in order within a run");
            for (int j = HEADER; j < datagram.length; j++)
            {
                assertEquals((byte)i, datagram[j], "payload of datagram " + i);
            }
        }
    }

    /**
     * Poll until {@code count} datagrams arrived, noting the offset in the handler's buffer of each.
     */
    private static List<byte[]> receiveWithOffsets(final BatchedUdpTransport transport, final int count,
        final List<Integer> offsets) throws InterruptedException
    {
        final List<byte[]> received = new ArrayList<>();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (received.size() < count && System.nanoTime() < deadline)
        {
            transport.poll((buffer, offset, length, plane) ->
            {
                offsets.add(offset);
                final byte[] bytes = new byte[length];
                buffer.getBytes(offset, bytes);
                received.add(bytes);
            }, 16);
            Thread.sleep(1);
        }
        return received;
    }

    @Test
    void shouldSendARunOfSameSizedDatagramsAsOneSegmentedMessageAndSplitItOnReceive() throws Exception
    {
        final BatchedUdpTransport a = open(null);
        final BatchedUdpTransport b = open(null);
        final int destination = a.addDestination(addresses(b));
        toBatchedReads(a, destination, b);
        final long callsBefore = a.sendCalls();
        final long sentBefore = a.sentDatagrams();

        sendRun(a, destination, 1, 16, 1376);
        assertEquals(1, a.sendCalls() - callsBefore, "one sendmmsg of one segmented message");
        assertEquals(16, a.sentDatagrams() - sentBefore);

        final List<Integer> offsets = new ArrayList<>();
        assertRun(receiveWithOffsets(b, 16, offsets), 16, 1376);
        assertTrue(offsets.stream().anyMatch((offset) -> offset > 0),
            "datagrams split out of one coalesced run are handed over in place, past its start: " + offsets);
    }

    @Test
    void shouldSendMixedSizesAsSegmentedRunsOfOneSendmmsgInOrder() throws Exception
    {
        final BatchedUdpTransport a = open(null);
        final BatchedUdpTransport b = open(null);
        final int destination = a.addDestination(addresses(b));
        toBatchedReads(a, destination, b);

        // fragmented messages (a full DATA, then its short tail) and an odd one ahead of a run: each run segmented
        final int[][] queues = {
            {1376, 64, 1376, 64, 1376, 64, 1376, 64, 1376, 64, 1376, 64, 1376, 64, 1376, 64},
            {64, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376, 1376},
        };
        for (final int[] sizes : queues)
        {
            final long callsBefore = a.sendCalls();
            final long sentBefore = a.sentDatagrams();
            final long segmentedBefore = a.sockets.segmentedMessages;
            final UnsafeBuffer header = new UnsafeBuffer(BufferUtil.allocateDirectAligned(HEADER, 64));
            final UnsafeBuffer body = new UnsafeBuffer(BufferUtil.allocateDirectAligned(sizes.length * 1376, 64));
            for (int i = 0; i < sizes.length; i++)
            {
                header.putInt(0, i);
                body.setMemory(i * 1376, sizes[i], (byte)i);
                assertEquals(PacketTransport.SENT, a.send(destination, 0, 1, header, 0, HEADER, body, i * 1376,
                    sizes[i]));
            }
            a.flush();
            assertEquals(1, a.sendCalls() - callsBefore, "one sendmmsg of every run: " + Arrays.toString(sizes));
            assertEquals(sizes.length, a.sentDatagrams() - sentBefore);
            assertEquals(sizes[0] > sizes[1] ? 8 : 1, a.sockets.segmentedMessages - segmentedBefore,
                "segmented runs: " + Arrays.toString(sizes));

            final List<byte[]> received = receive(b, sizes.length, null);
            assertEquals(sizes.length, received.size());
            for (int i = 0; i < sizes.length; i++)
            {
                final byte[] datagram = received.get(i);
                assertEquals(HEADER + sizes[i], datagram.length, "datagram " + i);
                assertEquals(i, new UnsafeBuffer(datagram).getInt(0), "in order");
                for (int j = HEADER; j < datagram.length; j++)
                {
                    assertEquals((byte)i, datagram[j], "payload of datagram " + i);
                }
            }
        }
    }

    @Test
    void shouldCopyADatagramOfAnOddSizedRunToAnAlignedBufferBeforeHandingItOver() throws Exception
    {
        final BatchedUdpTransport a = open(null);
        final BatchedUdpTransport b = open(null);
        final int destination = a.addDestination(addresses(b));
        toBatchedReads(a, destination, b);

        sendRun(a, destination, 2, 8, 37);
        final List<Integer> offsets = new ArrayList<>();
        assertRun(receiveWithOffsets(b, 8, offsets), 8, 37);
        offsets.forEach((offset) -> assertEquals(0, offset & 7, "every datagram starts 8-byte aligned"));
    }

    @Test
    void shouldSendAndReceiveManyDatagramsPerCallWithoutSegmentation() throws Exception
    {
        final BatchedUdpTransport a = openWithoutSegmentation();
        final BatchedUdpTransport b = openWithoutSegmentation();
        final int destination = a.addDestination(addresses(b));
        toBatchedReads(a, destination, b);
        final long sendCallsBefore = a.sendCalls();
        final long receiveCallsBefore = b.receiveCalls();
        final long receivedBefore = b.receivedDatagrams();

        sendRun(a, destination, 3, 20, 100);
        assertEquals(3, a.sendCalls() - sendCallsBefore, "batches of 8: 8 + 8 + 4");
        assertRun(receive(b, 20, null), 20, 100);
        final long calls = b.receiveCalls() - receiveCallsBefore;
        assertTrue(b.receivedDatagrams() - receivedBefore == 20 && calls < 20, "recvmmsg reads several a call: " +
            calls + " calls");
    }

    @Test
    void shouldReadOneDatagramAtATimeUntilTheyQueueUpAndGoBackWhenQuiet() throws Exception
    {
        final BatchedUdpTransport a = open(null);
        final BatchedUdpTransport b = open(null);
        final int destination = a.addDestination(addresses(b));
        assertTrue(b.readsSingly(0), "a fresh socket reads singly");

        sendRun(a, destination, 0, 1, 100);
        assertRun(receive(b, 1, null), 1, 100);
        assertTrue(b.readsSingly(0), "one datagram at a time stays single");
        assertEquals(0, b.receiveModeChanges());

        toBatchedReads(a, destination, b);
        final List<Integer> offsets = new ArrayList<>();
        sendRun(a, destination, 0, 8, 200);
        assertRun(receiveWithOffsets(b, 8, offsets), 8, 200);
        assertTrue(offsets.stream().anyMatch((offset) -> offset > 0), "coalesced once batched: " + offsets);

        // a datagram at a time: each poll that finds one is a quiet one (a poll of a socket that is not readable
        // reads nothing and counts for nothing)
        final int[] received = new int[1];
        final PacketHandler counting = (buffer, offset, length, plane) -> received[0]++;
        for (int i = 0; i < 1_100 && !b.readsSingly(0); i++)
        {
            sendRun(a, destination, 0, 1, 100);
            final int expected = received[0] + 1;
            for (int polls = 0; received[0] < expected && polls < 1_000_000; polls++)
            {
                b.poll(counting, 16);
            }
            assertEquals(expected, received[0], "datagram " + i);
        }
        assertTrue(b.readsSingly(0), "back to single reads after quiet polls, once the socket was found empty");
        assertEquals(2, b.receiveModeChanges());

        sendRun(a, destination, 0, 4, 300);
        assertRun(receive(b, 4, null), 4, 300);
        assertEquals(3, b.receiveModeChanges(), "and to batched reads again when datagrams queue up");
    }

    /**
     * Send a run that arrives as several datagrams at once, so that the receiver moves plane 0 to batched reads.
     */
    private void toBatchedReads(final BatchedUdpTransport from, final int destination, final BatchedUdpTransport to)
        throws InterruptedException
    {
        final long changes = to.receiveModeChanges();
        sendRun(from, destination, 0, 4, 64);
        assertRun(receive(to, 4, null), 4, 64);
        assertFalse(to.readsSingly(0), "four datagrams found at once: batched reads");
        assertEquals(changes + 1, to.receiveModeChanges());
    }

    @Test
    void shouldRefuseABatchLengthOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> PacketTransportFactory.batchedUdp(1, true));
        assertThrows(IllegalArgumentException.class, () -> PacketTransportFactory.batchedUdp(1025, true));
        assertTrue(PacketTransportFactory.batchedUdp(64, false).toString().contains("64"));
    }
}
