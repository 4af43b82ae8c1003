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
package io.metaroce.datapath.security;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReplayWindowsTest
{
    @Test
    void shouldAcceptEachCounterOnceInAnyOrderInsideTheWindow()
    {
        final ReplayWindows windows = new ReplayWindows(1, 128);
        assertEquals(64, windows.windowLength());
        for (final long counter : new long[]{5, 3, 9, 4, 0, 60})
        {
            assertEquals(ReplayWindows.FRESH, windows.check(0, counter));
            windows.accept(0, counter);
            assertEquals(ReplayWindows.REPLAYED, windows.check(0, counter));
        }
        assertEquals(ReplayWindows.FRESH, windows.check(0, 1));
        assertEquals(60, windows.highest(0));
    }

    @Test
    void shouldCallACounterBehindTheWindowTooOld()
    {
        final ReplayWindows windows = new ReplayWindows(1, 128);
        windows.accept(0, 1000);
        assertEquals(ReplayWindows.TOO_OLD, windows.check(0, 1000 - 64));
        assertEquals(ReplayWindows.FRESH, windows.check(0, 1000 - 63));
    }

    @Test
    void shouldClearTheWordsTheWindowMovesOnto()
    {
        final ReplayWindows windows = new ReplayWindows(1, 128);
        windows.accept(0, 10);
        windows.accept(0, 10 + 128 + 20);
        // 138 shares counter 10's bit in the ring: the move cleared it rather than leave 138 marked as seen
        assertEquals(ReplayWindows.FRESH, windows.check(0, 10 + 128));
        windows.accept(0, 10 + 128);
        assertEquals(ReplayWindows.REPLAYED, windows.check(0, 10 + 128));
    }

    @Test
    void shouldKeepLanesApart()
    {
        final ReplayWindows windows = new ReplayWindows(4, 256);
        windows.accept(2, 7);
        assertEquals(ReplayWindows.FRESH, windows.check(1, 7));
        assertEquals(ReplayWindows.REPLAYED, windows.check(2, 7));
        assertEquals(ReplayWindows.NO_SUCH_LANE, windows.check(4, 7));
        assertEquals(ReplayWindows.NO_SUCH_LANE, windows.check(-1, 7));
    }

    @Test
    void shouldRefuseAWindowThatIsNotAPowerOfTwo()
    {
        assertThrows(IllegalArgumentException.class, () -> new ReplayWindows(1, 1000));
        assertThrows(IllegalArgumentException.class, () -> new ReplayWindows(0, 1024));
        assertThrows(IllegalArgumentException.class, () -> new ReplayWindows(257, 1024));
    }

    @Test
    void shouldAgreeWithASetOfSeenCountersUnderRandomReorderingAndReplay()
    {
        final long seed = System.nanoTime();
        System.out.println("ReplayWindowsTest seed " + seed);
        final Random random = new Random(seed);
        final ReplayWindows windows = new ReplayWindows(1, 1024);
        final Set<Long> seen = new HashSet<>();
        long highest = -1;
        long next = 0;
        for (int i = 0; i < 200_000; i++)
        {
            final long counter;
            final int kind = random.nextInt(10);
            if (kind < 6)
            {
                counter = next++;
            }
            else if (kind < 9)
            {
                counter = Math.max(0, next - 1 - random.nextInt(1200));
            }
            else
            {
                next += random.nextInt(3000);
                counter = next++;
            }
            final int expected = counter > highest ? ReplayWindows.FRESH :
                highest - counter >= windows.windowLength() ? ReplayWindows.TOO_OLD :
                seen.contains(counter) ? ReplayWindows.REPLAYED : ReplayWindows.FRESH;
            assertEquals(expected, windows.check(0, counter), "counter " + counter + " seed " + seed);
            if (ReplayWindows.FRESH == expected)
            {
                windows.accept(0, counter);
                seen.add(counter);
                highest = Math.max(highest, counter);
            }
        }
    }
}
