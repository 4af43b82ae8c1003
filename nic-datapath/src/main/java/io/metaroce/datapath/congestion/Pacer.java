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
package io.metaroce.datapath.congestion;

/**
 * Paces transmissions at a byte rate: after a send of {@code n} bytes the next send is due {@code n / rate} later.
 * A burst allowance lets the schedule lag behind the clock by at most that many bytes' worth of time, so that a
 * sender may still hand the kernel a batch (which segmentation offload coalesces) while its average stays at the
 * rate; idle time does not accumulate into a larger burst. A rate of 0 disables pacing. Single-threaded; no
 * allocation.
 */
public final class Pacer
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private long bytesPerSecond;
    private long burstNs;
    private long nextSendNs = Long.MIN_VALUE;

    /**
     * Set the rate.
     *
     * @param bytesPerSecond the rate, 0 to disable pacing.
     */
    public void rate(final long bytesPerSecond)
    {
        rate(bytesPerSecond, 0);
    }

    /**
     * Set the rate and the burst allowance.
     *
     * @param bytesPerSecond the rate, 0 to disable pacing.
     * @param burstBytes     bytes that may follow a send back to back after a pause, 0 for none.
     */
    public void rate(final long bytesPerSecond, final long burstBytes)
    {
        this.bytesPerSecond = Math.max(0, bytesPerSecond);
        this.burstNs = 0 == this.bytesPerSecond || burstBytes <= 0 ? 0 :
            (long)((double)burstBytes * NANOS_PER_SECOND / this.bytesPerSecond);
    }

    /**
     * The rate.
     *
     * @return bytes per second, 0 when pacing is off.
     */
    public long rate()
    {
        return bytesPerSecond;
    }

    /**
     * May a packet be sent now?
     *
     * @param nowNs current time.
     * @return true when pacing is off or the next send is due.
     */
    public boolean isReady(final long nowNs)
    {
        return 0 == bytesPerSecond || nowNs >= nextSendNs;
    }

    /**
     * When the next send is due.
     *
     * @return the time, or {@link Long#MIN_VALUE} when pacing is off or no send happened yet.
     */
    public long nextSendNs()
    {
        return 0 == bytesPerSecond ? Long.MIN_VALUE : nextSendNs;
    }

    /**
     * Account for a send.
     *
     * @param bytes sent.
     * @param nowNs current time.
     */
    public void onSend(final int bytes, final long nowNs)
    {
        if (0 != bytesPerSecond)
        {
            final long start = Math.max(nextSendNs, nowNs - burstNs);
            nextSendNs = start + Math.max(1, bytes * NANOS_PER_SECOND / bytesPerSecond);
        }
    }
}
