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
package io.metaroce.systemtest.compliance;

/**
 * TransportHeader flag bits (section 3.3) and the flags each message type may carry.
 */
final class Flags
{
    static final int RESERVED_BIT0 = 0x0001;
    static final int ACK_REQUEST = 0x0002;
    static final int RETX = 0x0004;
    static final int ECN_CE = 0x0008;
    static final int FIRST_OF_MESSAGE = 0x0010;
    static final int LAST_OF_MESSAGE = 0x0020;
    static final int DUPLICATE = 0x0040;
    static final int PATH_SATURATED = 0x0080;
    static final int OVERFLOW = 0x0100;
    static final int FIN = 0x0200;
    static final int UNDEFINED = 0xFC00 | RESERVED_BIT0;

    private Flags()
    {
    }

    /**
     * Flags section 3.3 lists for a message type; every other bit must be zero [MR-ENC-8]. SETUP, SETUP_ACK, CREDIT,
     * CREDIT_REQUEST, CLOSE_ACK, ERROR and the four stream messages carry none.
     */
    static int allowed(final int templateId)
    {
        switch (templateId)
        {
            case 1:
                return ACK_REQUEST | RETX | FIRST_OF_MESSAGE | LAST_OF_MESSAGE | FIN;
            case 2:
                return RETX | DUPLICATE | OVERFLOW;
            case 3:
            case 7:
                return RETX;
            case 6:
            case 12:
                return ACK_REQUEST;
            case 10:
                return FIN;
            default:
                return 0;
        }
    }
}
