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

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The position arithmetic of multi-destination flow control: the publisher limit never lets a publisher write into
 * a partition that still holds bytes at or beyond the retained position, and the overrun rule drops exactly the
 * destinations that would bind it. {@code -Dmetaroce.test.seed=S} replays the random cases.
 */
class PublicationDestinationsTest
{
    private static final int PARTITIONS = 3;
    private static final long SEED = Long.getLong("metaroce.test.seed", System.nanoTime());

    @Test
    void shouldFollowTheFlowControlPositionByTheWindow()
    {
        final int termLength = 64 * 1024;
        final int window = termLength / 2;

        assertEquals(1_000 + window, PublicationDestinations.publisherLimit(1_000, 1_000, termLength, window));
        assertEquals(1_000 + window, PublicationDestinations.publisherLimit(1_000, 0, termLength, window));
        assertEquals(2L * termLength, PublicationDestinations.publisherLimit(3L * termLength, 0, termLength, window),
            "a destination two terms behind the fastest caps the limit");
    }

    @Test
    void shouldDropOnlyADestinationThatWouldHoldTheFastestBack()
    {
        final int termLength = 64 * 1024;
        final int window = termLength / 2;
        final long fastest = 10L * termLength;

        assertFalse(PublicationDestinations.isOverrun(fastest, fastest, termLength, window));
        assertFalse(PublicationDestinations.isOverrun(fastest + window - 2L * termLength, fastest, termLength, window));
        assertTrue(PublicationDestinations.isOverrun(fastest + window - 2L * termLength - 32, fastest, termLength,
            window));
    }

    @Test
    void shouldNeverLetAPublisherReusePartitionOfRetainedBytes()
    {
        System.out.println(getClass().getSimpleName() + " seed " + SEED);
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 100_000; i++)
        {
            final int termLength = 1 << (16 + random.nextInt(8));
            final int window = 32 * (1 + random.nextInt(termLength / 64));
            final long retained = 32L * random.nextLong(1L << 40);
            final long flow = retained + 32L * random.nextLong(4L * termLength / 32);
            final long limit = PublicationDestinations.publisherLimit(flow, retained, termLength, window);

            // the last byte a publisher may write, and the start of the term whose partition it reuses
            final long lastTermStart = ((limit - 1) / termLength) * termLength;
            final long reusedTermEnd = lastTermStart - (PARTITIONS - 1L) * termLength;
            assertTrue(reusedTermEnd <= retained, "seed " + SEED + " case " + i + ": limit " + limit +
                " reuses the partition of a term ending at " + reusedTermEnd + " beyond the retained " + retained);
            assertTrue(limit <= flow + window, "seed " + SEED + " case " + i);
            if (!PublicationDestinations.isOverrun(retained, flow, termLength, window))
            {
                assertEquals(flow + window, limit, "seed " + SEED + " case " + i + ": not overrun, not bound");
            }
        }
    }
}
