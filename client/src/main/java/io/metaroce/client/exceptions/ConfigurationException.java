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
package io.metaroce.client.exceptions;

/**
 * A setting of a client or driver context is invalid; the message names the setting and the value.
 */
public final class ConfigurationException extends MetaRoceException
{
    private static final long serialVersionUID = 8741369032150286137L;

    /**
     * Create an exception.
     *
     * @param message naming the setting and what is wrong with it.
     */
    public ConfigurationException(final String message)
    {
        super(message);
    }
}
