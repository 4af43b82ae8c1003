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
package io.metaroce.driver;

import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.FrameAccess;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.driver.buffer.LogFactory;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A network publication that closes appends the empty end-of-stream frame (BEGIN | END | EOS): the subscriber gets
 * every message exactly once and no empty one, the image's end of stream (the CLOSE's finalPosition) is just after
 * that frame, and the image goes unavailable once it is read there. {@code -Dmetaroce.network.test.seed=S} replays
 * the message lengths.
 */
class NetworkEndOfStreamTest
{
    private static final int STREAM_ID = 2101;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final long SEED = Long.getLong("metaroce.network.test.seed", System.nanoTime());

    private final List<Image> available = new CopyOnWriteArrayList<>();
    private final List<Image> unavailable = new CopyOnWriteArrayList<>();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8 * 1024]);
    private NetworkTestHarness harness;
    private LogBuffers imageLog;
    private int received;
    private int emptyMessages;
    private int outOfOrder;

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(imageLog, harness);
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldDeliverEveryMessageOnceAndEndAfterEosFrameWhenPublicationCloses(final boolean exclusive)
    {
        System.out.println("NetworkEndOfStreamTest seed=" + SEED);
        final SplittableRandom random = new SplittableRandom(SEED);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transferAndClose(exclusive, 500,
            () -> 4 + random.nextInt(random.nextBoolean() ? 200 : 4_000)));
    }

    @Test
    void shouldEndStreamInNextTermWhenLastMessageFillsTerm()
    {
        final int frameLength = 1024;
        final int messages = TERM_LENGTH / frameLength;
        final long lastPosition = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transferAndClose(
            true, messages, () -> frameLength - FrameDescriptor.HEADER_LENGTH));
        assertEquals(TERM_LENGTH, lastPosition);
    }

    private long transferAndClose(final boolean exclusive, final int count, final LengthSource lengths)
    {
        harness = new NetworkTestHarness(2);
        final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
        final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
        final MetaRoce receiverClient = harness.connect(receiverDriver);
        final MetaRoce senderClient = harness.connect(senderDriver);

        final String extra = "|term-length=" + TERM_LENGTH;
        final Subscription subscription = receiverClient.addSubscription(
            harness.subscriptionChannel(extra), STREAM_ID, available::add, unavailable::add);
        final Publication publication = exclusive ?
            senderClient.addExclusivePublication(harness.publicationChannel(extra), STREAM_ID) :
            senderClient.addPublication(harness.publicationChannel(extra), STREAM_ID);
        Await.until("publication connected", 10_000, publication::isConnected);
        Await.until("image available", 10_000, () -> 1 == available.size());
        final Image image = available.get(0);
        imageLog = new LogBuffers(new File(new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR),
            image.correlationId() + LogFactory.LOG_FILE_SUFFIX).getPath());

        final FragmentAssembler assembler = new FragmentAssembler(
            (b, offset, length, header) -> onMessage(b, offset, length));
        int sent = 0;
        int length = lengths.next();
        long lastPosition = 0;
        while (received < count)
        {
            if (sent < count)
            {
                buffer.putInt(0, sent);
                final long result = publication.offer(buffer, 0, length);
                if (result > 0)
                {
                    sent++;
                    lastPosition = result;
                    length = lengths.next();
                }
                else
                {
                    assertTrue(Publication.BACK_PRESSURED == result || Publication.ADMIN_ACTION == result,
                        "offer result " + result);
                }
            }
            if (0 == subscription.poll(assembler, 16))
            {
                LockSupport.parkNanos(10_000);
            }
        }

        publication.close();
        Await.until("end of stream", 10_000, () ->
        {
            subscription.poll(assembler, 16);
            return image.isEndOfStream();
        });
        Await.until("image unavailable", 10_000, () -> 1 == unavailable.size() && 0 == subscription.imageCount());

        final long endOfStream = lastPosition + FrameDescriptor.HEADER_LENGTH;
        assertEquals(endOfStream, LogBufferDescriptor.endOfStreamPosition(imageLog.metaDataBuffer()),
            "the CLOSE's finalPosition includes the end-of-stream frame");
        assertEquals(endOfStream, image.position());
        final int shift = LogBufferDescriptor.positionBitsToShift(TERM_LENGTH);
        final UnsafeBuffer term = imageLog.termBuffers()[LogBufferDescriptor.indexByPosition(lastPosition, shift)];
        final int offset = (int)lastPosition & (TERM_LENGTH - 1);
        assertEquals(FrameDescriptor.HEADER_LENGTH, FrameAccess.frameLengthVolatile(term, offset));
        assertEquals(
            (byte)(FrameDescriptor.UNFRAGMENTED | FrameDescriptor.EOS_FLAG), FrameAccess.frameFlags(term, offset));
        assertEquals(publication.sessionId(), FrameAccess.frameSessionId(term, offset));
        assertEquals(STREAM_ID, FrameAccess.frameStreamId(term, offset));

        assertEquals(count, received);
        assertEquals(0, emptyMessages, "no empty message");
        assertEquals(0, outOfOrder, "every message once and in order");

        return lastPosition;
    }

    private void onMessage(final DirectBuffer b, final int offset, final int length)
    {
        if (0 == length)
        {
            emptyMessages++;
            return;
        }
        if (b.getInt(offset) != received)
        {
            outOfOrder++;
        }
        received++;
    }

    @FunctionalInterface
    private interface LengthSource
    {
        int next();
    }
}
