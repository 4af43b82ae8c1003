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
package io.metaroce.datapath.path;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathTableTest
{
    private static final long MS = 1_000_000;
    private static final long SRTT = 20_000;

    private final List<Integer> probes = new ArrayList<>();
    private final List<String> changes = new ArrayList<>();
    private int probeSeq;

    private PathTable table(final int planes, final int paths, final boolean eviction)
    {
        return new PathTable(planes, paths, new PathHealthPolicy(eviction, 0.5, 4, 3, MS, MS, 1_000 * MS, 3, 8, 0.75),
            new PathHealthHandler()
            {
                public int sendPathProbe(final int path)
                {
                    probes.add(path);
                    return ++probeSeq;
                }

                public void onPathStateChange(final int path, final int oldState, final int newState)
                {
                    changes.add(path + ":" + oldState + "->" + newState);
                }
            });
    }

    @Test
    void shouldSuspectPathOnTwoChargedLossesWithinFourSrttButNotOnOne()
    {
        final PathTable paths = table(1, 4, true);
        assertEquals(PathTable.LOSS_CHARGED, paths.onLoss(1, 0, false, SRTT, 100));
        assertEquals(PathTable.ACTIVE, paths.state(1));
        paths.onEcho(1, 0, true, 200);
        paths.onLoss(1, 0, false, SRTT, 100 + 5 * SRTT);
        assertEquals(PathTable.ACTIVE, paths.state(1), "the echo in between and the window apart keep it ACTIVE");
        // [MR-PATH-3] (a)
        paths.onLoss(1, 0, false, SRTT, 100 + 5 * SRTT + 4 * SRTT);
        assertEquals(PathTable.SUSPECT, paths.state(1));
        assertEquals(3, paths.activeCount());
    }

    @Test
    void shouldSuspectPathOnTimeoutAndOnTwoLossesWithoutAnEchoInBetween()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(0, 0, true, SRTT, 100);
        // [MR-PATH-3] (b)
        assertEquals(PathTable.SUSPECT, paths.state(0));
        paths.onLoss(2, 0, false, SRTT, 100);
        paths.onLoss(2, 0, false, SRTT, 100 + 100 * SRTT);
        assertEquals(PathTable.SUSPECT, paths.state(2), "consecutive losses with no delivery in between");
    }

    @Test
    void shouldNotLetMoreThanHalfThePathsLeaveActive()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(0, 0, true, SRTT, 100);
        paths.onLoss(1, 0, true, SRTT, 100);
        // [MR-PATH-10] floor(0.5 x 4) = 2 already out: the third is congestion
        assertEquals(PathTable.LOSS_CONGESTION, paths.onLoss(2, 0, true, SRTT, 100));
        assertEquals(PathTable.ACTIVE, paths.state(2));
        assertEquals(2, paths.activeCount());
        final PathTable single = table(1, 1, true);
        assertEquals(PathTable.LOSS_CONGESTION, single.onLoss(0, 0, true, SRTT, 100), "one path never leaves");
    }

    @Test
    void shouldReturnSuspectPathToActiveOnlyOnEchoOfTransmissionSentAfterSuspicion()
    {
        final PathTable paths = table(1, 4, true);
        for (int i = 0; i < 5; i++)
        {
            paths.takePathSeq(3);
        }
        paths.onLoss(3, 0, true, SRTT, 100);
        paths.onEcho(3, 4, true, 200);
        // [MR-PATH-5] pathSeq 4 was sent before SUSPECT (next was 5)
        assertEquals(PathTable.SUSPECT, paths.state(3));
        paths.onEcho(3, 5, false, 300);
        assertEquals(PathTable.ACTIVE, paths.state(3));
    }

    @Test
    void shouldProbeSuspectPathThreeTimesThenEvict()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(1, 0, true, SRTT, 0);
        long now = 0;
        for (int i = 0; i < 3; i++)
        {
            paths.processTimers(now, SRTT);
            // Path 0 keeps delivering promptly what it sends after each probe, so the silence is path 1's own.
            paths.onPromptAnswer(0, now + 1);
            now += MS;
        }
        // [MR-PATH-4] three probes, probeInterval = max(srtt, 1 ms) apart
        assertEquals(List.of(1, 1, 1), probes);
        paths.processTimers(now - 1, SRTT);
        assertEquals(PathTable.SUSPECT, paths.state(1));
        paths.processTimers(now, SRTT);
        // [MR-PATH-6]
        assertEquals(PathTable.EVICTED, paths.state(1));
        assertFalse(paths.isActive(1));
    }

    @Test
    void shouldNotCountUnansweredProbesWhileNoOtherPathAnswersPromptly()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(1, 0, true, SRTT, 0);
        long now = 0;
        for (int i = 0; i < 10; i++)
        {
            paths.processTimers(now, SRTT);
            now += MS;
        }
        // [MR-PATH-13] every path silent together (a descheduled receiver): the probes go on but none counts
        assertEquals(10, probes.size());
        assertEquals(PathTable.SUSPECT, paths.state(1));
        paths.onPromptAnswer(0, now - MS - 1);
        paths.processTimers(now, SRTT);
        assertEquals(PathTable.SUSPECT, paths.state(1), "path 0's answer is of a transmission sent before the probe");

        for (int i = 0; i < 3; i++)
        {
            paths.onPromptAnswer(2, now + 1);
            now += MS;
            paths.processTimers(now, SRTT);
        }
        assertEquals(PathTable.EVICTED, paths.state(1), "three probes that path 2 overtook");
    }

    @Test
    void shouldChargeOnlyLossesThatDistinguishTheirPath()
    {
        final PathTable paths = table(2, 2, true);
        final long window = 50_000;
        // [MR-PATH-13] a timeout no other path overtook is shared, whatever it did on its own path
        assertFalse(paths.isLossDistinct(1, 1_000, true, true, window));
        paths.onPromptAnswer(1, 2_000_000);
        assertFalse(paths.isLossDistinct(1, 1_000, true, true, window), "a path does not overtake itself");
        assertFalse(paths.isOvertaken(1, 1_000, window));
        paths.onPromptAnswer(2, 1_000 + window - 1);
        assertFalse(paths.isLossDistinct(1, 1_000, true, true, window), "not a window later");
        paths.onPromptAnswer(2, 1_000 + window);
        assertTrue(paths.isLossDistinct(1, 1_000, true, false, window));
        assertTrue(paths.isLossDistinct(2, 1_000, true, false, window), "path 1 overtook path 2's transmission");
        assertFalse(paths.isLossDistinct(3, 2_000_000, true, false, window), "nothing sent after it was answered");

        // [MR-PATH-14] a loss revealed by an answer counts only when that answer was prompt
        assertTrue(paths.isLossDistinct(3, 2_000_000, false, true, window));
        assertFalse(paths.isLossDistinct(3, 1_000, false, false, window));

        final PathTable off = table(2, 2, false);
        assertTrue(off.isLossDistinct(0, 0, true, false, window), "with eviction off onLoss decides (it ignores)");
    }

    @Test
    void shouldTellPromptFromLateAnswersByTheMedianPathSrtt()
    {
        final PathTable paths = table(1, 4, true);
        assertTrue(paths.isPrompt(Long.MAX_VALUE - 1), "everything is prompt before the first check");
        paths.onRttSample(0, 10_000);
        paths.onRttSample(1, 20_000);
        paths.onRttSample(2, 30_000);
        assertEquals(0, paths.checkRttOutliers(0));
        assertEquals(8 * 20_000, paths.lateLimitNs());
        assertTrue(paths.isPrompt(160_000));
        assertFalse(paths.isPrompt(160_001));
    }

    @Test
    void shouldFoldLateSamplesNoOtherPathOvertookAsTheLatenessLimitOnly()
    {
        final PathTable paths = table(1, 8, true);
        level(paths, 10_000);
        final long limit = paths.lateLimitNs();
        final long window = 50_000;
        // [MR-PATH-15] a 50 ms stall of the host: path 5's answers are late and no other path overtook them
        for (int i = 0; i < 40; i++)
        {
            paths.onRttSample(5, 50 * MS, 1_000_000 + i, window);
        }
        assertTrue(paths.srttNs(5) <= limit, "srtt " + paths.srttNs(5) + " limit " + limit);
        assertEquals(0, paths.checkRttOutliers(0));
        assertEquals(PathTable.ACTIVE, paths.state(5));

        // Path 6 is slow on its own: path 0 answers promptly what it sent after path 6's transmissions.
        paths.onPromptAnswer(0, 3_000_000);
        for (int i = 0; i < 40; i++)
        {
            paths.onRttSample(6, 1 * MS, 2_000_000 + i, window);
        }
        assertTrue(paths.srttNs(6) > limit);
        assertEquals(1, paths.checkRttOutliers(0));
        assertEquals(PathTable.SUSPECT, paths.state(6));
    }

    @Test
    void shouldKeepTheLatestPromptAnswerOfEveryOtherPath()
    {
        final PathTable paths = table(1, 4, true);
        paths.onPromptAnswer(0, 100);
        paths.onPromptAnswer(1, 300);
        paths.onPromptAnswer(2, 200);
        paths.onPromptAnswer(1, 250);
        assertTrue(paths.isOvertaken(0, 300, 0), "path 1 answered a transmission sent at 300");
        assertFalse(paths.isOvertaken(1, 201, 0), "for path 1 the others reach 200 only");
        assertTrue(paths.isOvertaken(1, 200, 0));
        paths.onPromptAnswer(1, 400);
        paths.onPromptAnswer(3, 350);
        assertTrue(paths.isOvertaken(1, 350, 0));
        assertFalse(paths.isOvertaken(1, 351, 0));
        assertTrue(paths.isOvertaken(3, 400, 0));
    }

    @Test
    void shouldEvictSuspectPathOnAnotherChargedLossOfALaterTransmission()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(1, 0, true, SRTT, 1_000);
        paths.onLoss(1, 500, false, SRTT, 1_100);
        assertEquals(PathTable.SUSPECT, paths.state(1), "a transmission sent before SUSPECT does not count");
        paths.onLoss(1, 1_050, false, SRTT, 1_200);
        assertEquals(PathTable.EVICTED, paths.state(1));
    }

    @Test
    void shouldReprobeEvictedPathWithDoublingBackoffAndReadmitAfterThreeAnswers()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(2, 0, true, SRTT, 0);
        paths.onLoss(2, 10, false, SRTT, 10);
        assertEquals(PathTable.EVICTED, paths.state(2));
        paths.processTimers(10, SRTT);
        probes.clear();

        // [MR-PATH-8] first probe 1 ms after eviction, then 2, 4, 8 ms while unanswered
        final long[] expected = { MS, 2 * MS, 4 * MS, 8 * MS };
        long now = 10;
        for (final long gap : expected)
        {
            assertEquals(now + gap, paths.nextDeadlineNs());
            now += gap;
            paths.processTimers(now, SRTT);
        }
        assertEquals(4, probes.size());

        // [MR-PATH-9] three consecutive answers re-admit; [MR-PRB-8] an answer to an unknown probe is ignored
        paths.onProbeAck(2, probeSeq + 100, now);
        paths.onProbeAck(2, probeSeq, now);
        for (int i = 0; i < 2; i++)
        {
            assertEquals(PathTable.EVICTED, paths.state(2));
            assertEquals(now + MS, paths.nextDeadlineNs(), "back to 1 ms after an answer");
            now += MS;
            paths.processTimers(now, SRTT);
            paths.onProbeAck(2, probeSeq, now);
        }
        assertEquals(PathTable.ACTIVE, paths.state(2));
        assertTrue(changes.contains("2:3->1"));
    }

    @Test
    void shouldRestartReadmissionCountWhenAProbeGoesUnanswered()
    {
        final PathTable paths = table(1, 4, true);
        paths.onLoss(0, 0, true, SRTT, 0);
        paths.onLoss(0, 1, false, SRTT, 1);
        paths.processTimers(1, SRTT);
        long now = paths.nextDeadlineNs();
        paths.processTimers(now, SRTT);
        paths.onProbeAck(0, probeSeq, now);
        paths.onProbeAck(0, probeSeq, now);
        now = paths.nextDeadlineNs();
        paths.processTimers(now, SRTT);
        // this probe goes unanswered: the next one restarts the count
        now = paths.nextDeadlineNs();
        paths.processTimers(now, SRTT);
        paths.onProbeAck(0, probeSeq, now);
        now = paths.nextDeadlineNs();
        paths.processTimers(now, SRTT);
        paths.onProbeAck(0, probeSeq, now);
        assertEquals(PathTable.EVICTED, paths.state(0), "two answers since the unanswered probe");
        now = paths.nextDeadlineNs();
        paths.processTimers(now, SRTT);
        paths.onProbeAck(0, probeSeq, now);
        assertEquals(PathTable.ACTIVE, paths.state(0));
    }

    @Test
    void shouldKeepEveryPathActiveAndSendNoProbesWhenEvictionIsOff()
    {
        final PathTable paths = table(1, 4, false);
        assertEquals(PathTable.LOSS_IGNORED, paths.onLoss(0, 0, true, SRTT, 100));
        paths.onLoss(0, 0, false, SRTT, 101);
        paths.processTimers(10 * MS, SRTT);
        // [MR-PATH-11]
        assertEquals(PathTable.ACTIVE, paths.state(0));
        assertTrue(probes.isEmpty());
        assertEquals(0, paths.checkRttOutliers(0));
    }

    @Test
    void shouldSuspectPathWhoseRttIsAnOutlier()
    {
        final PathTable paths = table(1, 8, true);
        for (int p = 0; p < 8; p++)
        {
            paths.onRttSample(p, 10_000);
        }
        paths.onRttSample(5, 100_000);
        assertEquals(0, paths.checkRttOutliers(0));
        for (int i = 0; i < 40; i++)
        {
            paths.onRttSample(5, 1_000_000);
        }
        // [MR-PATH-3] (c): srtt above 8 x the median
        assertEquals(1, paths.checkRttOutliers(0));
        assertEquals(PathTable.SUSPECT, paths.state(5));
    }

    /**
     * Eight paths at 10 us, checked once (a lateness limit of 80 us), then 40 samples of 1 ms on path 5.
     */
    private PathTable tableWithPath5Slow()
    {
        final PathTable paths = table(2, 4, true);
        level(paths, 10_000);
        for (int i = 0; i < 40; i++)
        {
            paths.onRttSample(5, 1_000_000);
        }
        return paths;
    }

    /**
     * Give every path one sample of the same round trip, and check: no outlier, a lateness limit of 8 times it.
     */
    private static void level(final PathTable paths, final long rttNs)
    {
        for (int p = 0; p < paths.pathCount(); p++)
        {
            paths.onRttSample(p, rttNs);
        }
        assertEquals(0, paths.checkRttOutliers(0));
    }

    @Test
    void shouldNotMakeAPathAnOutlierUnlessItsLatestSampleConfirmsItsSrtt()
    {
        // the samples of a host's stall, all on the path that carried that send pass, then a prompt one
        final PathTable paths = tableWithPath5Slow();
        paths.onRttSample(5, 10_000);
        assertTrue(paths.srttNs(5) > 8 * 10_000, "srtt " + paths.srttNs(5));
        // [MR-PATH-3] (c): the srtt lags, the latest sample does not confirm it
        assertEquals(0, paths.checkRttOutliers(0));
        assertEquals(PathTable.ACTIVE, paths.state(5));
    }

    @Test
    void shouldNotLetASharedLateSampleConfirmAnOutlier()
    {
        final PathTable paths = tableWithPath5Slow();
        // late (above 8 x 10 us) and overtaken by nothing: shared, so no evidence against path 5 [MR-PATH-15]
        assertTrue(paths.onRttSample(5, 5_000_000, 0, 1_000));
        assertEquals(0, paths.checkRttOutliers(0));
        assertEquals(PathTable.ACTIVE, paths.state(5));
    }

    @Test
    void shouldLetAnOvertakenSampleConfirmAnOutlierButNotOneThatNothingOvertook()
    {
        final PathTable paths = table(2, 4, true);
        // a lateness limit of 8 ms
        level(paths, 1_000_000);
        for (int i = 0; i < 40; i++)
        {
            // the samples of a stall that path 5 alone carried: below the limit then, and nothing sent after them
            // came back sooner
            assertFalse(paths.onRttSample(5, 5_000_000, 1_000 * i, 1_000));
        }
        for (int p = 0; p < 8; p++)
        {
            for (int i = 0; p != 5 && i < 40; i++)
            {
                paths.onRttSample(p, 100_000);
            }
        }
        // the limit falls to 0.8 ms under path 5's srtt, which its latest sample does not confirm
        assertEquals(0, paths.checkRttOutliers(0));
        assertEquals(PathTable.ACTIVE, paths.state(5));

        // path 1 answers promptly what was sent 5 us after path 5's next transmission: path 5's sample is its own
        paths.onPromptAnswer(1, 45_000);
        assertFalse(paths.onRttSample(5, 5_000_000, 40_000, 1_000));
        // [MR-PATH-3] (c)
        assertEquals(1, paths.checkRttOutliers(0));
        assertEquals(PathTable.SUSPECT, paths.state(5));
    }

    @Test
    void shouldReportPlaneDownWhenMostOfItsPathsAreEvictedOrItsSocketFails()
    {
        final PathTable paths = table(2, 4, true);
        paths.onLoss(4, 0, true, SRTT, 0);
        paths.onLoss(4, 1, false, SRTT, 1);
        paths.onLoss(5, 0, true, SRTT, 0);
        paths.onLoss(5, 1, false, SRTT, 1);
        assertFalse(paths.isPlaneDown(1));
        paths.onLocalSendResult(0, true);
        assertTrue(paths.isPlaneDown(0));
        paths.onLocalSendResult(0, false);
        assertFalse(paths.isPlaneDown(0));
        assertEquals(1, paths.plane(5));
        assertEquals(1, paths.entropy(5));
    }
}
