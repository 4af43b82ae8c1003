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
package io.metaroce.datapath.tracking;

/**
 * Serial-number arithmetic (RFC 1982 style) for the wrapping sequence spaces of the protocol: the 32-bit PSN and
 * the 16-bit per-path sequence. A comparison is only meaningful for distances below half the space, which the
 * protocol guarantees: the tracking window is at most 2<sup>20</sup> PSNs, and a path never has 2<sup>15</sup>
 * transmissions outstanding.
 */
public final class Serial
{
    private Serial()
    {
    }

    /**
     * Is PSN {@code a} before PSN {@code b}?
     *
     * @param a a PSN, as the low 32 bits of the wire value.
     * @param b a PSN, as the low 32 bits of the wire value.
     * @return true when {@code (int)(a - b) < 0}.
     */
    public static boolean isBefore(final int a, final int b)
    {
        return a - b < 0;
    }

    /**
     * Is PSN {@code a} before or equal to PSN {@code b}?
     *
     * @param a a PSN.
     * @param b a PSN.
     * @return true when {@code (int)(a - b) <= 0}.
     */
    public static boolean isBeforeOrEqual(final int a, final int b)
    {
        return a - b <= 0;
    }

    /**
     * Later of two PSNs.
     *
     * @param a a PSN.
     * @param b a PSN.
     * @return {@code b} when {@code a} is before {@code b}, otherwise {@code a}.
     */
    public static int max(final int a, final int b)
    {
        return a - b < 0 ? b : a;
    }

    /**
     * Is 16-bit path sequence {@code a} before {@code b}?
     *
     * @param a a path sequence, low 16 bits significant.
     * @param b a path sequence, low 16 bits significant.
     * @return true when {@code (short)(a - b) < 0}.
     */
    public static boolean isPathSeqBefore(final int a, final int b)
    {
        return (short)(a - b) < 0;
    }

    /**
     * The wire value of a PSN, an unsigned 32-bit integer, as the int the engine computes with.
     *
     * @param wireValue the value a decoder returns.
     * @return its low 32 bits.
     */
    public static int psn(final long wireValue)
    {
        return (int)wireValue;
    }

    /**
     * The wire value of a PSN the engine computes with, for an encoder.
     *
     * @param psn the PSN.
     * @return the unsigned 32-bit value.
     */
    public static long wire(final int psn)
    {
        return psn & 0xFFFF_FFFFL;
    }
}
