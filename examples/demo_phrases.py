"""The fixed phrases the offline demo model builds its replies from, in a few languages.

An agent whose instructions say "Always reply in <language>" (as the dynamic_system_prompt
example writes them from the page's "Reply language" context) gets its demo replies in that
language when the table below has it, and in English with a short note otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

__all__ = ["Phrases", "phrases_for", "reply_language"]

_REPLY_LANGUAGE = re.compile(r"\balways reply in ([^\W\d_][^\W\d_-]*)", re.IGNORECASE)


@dataclass(frozen=True)
class Phrases:
    """The sentences of a demo reply in one language; ``{}`` fields are filled in."""

    language: str
    """The language's English name, as instructions name it."""
    you_said: str
    """Quotes the user's message."""
    instructions_start: str
    """Quotes the first sentence of the instructions."""
    page_shared: str
    """Lists the context lines the page sent."""
    offline_note: str
    """Says that the reply comes from the demo model."""
    found: str
    """Opens a reply built from tool outputs."""
    did_not_run: str
    """Says that a tool call was rejected and did not run."""
    greeting: str
    """Answers a greeting."""
    you_are: str
    """Tells the user the name the page shared."""
    page_says: str
    """Answers from the facts the page shared."""
    cannot_answer: str
    """Says, honestly, that the demo model cannot answer the message."""
    can_help: str
    """Lists what the agent's tools can do."""
    missing_note: str = ""
    """Set when the requested language had no phrases and English stands in."""


ENGLISH = Phrases(
    language="English",
    you_said="You said: “{}”.",
    instructions_start="My instructions start with: “{}”",
    page_shared="The page shared: {}.",
    offline_note=(
        "(This reply comes from the offline demo model; set OPENAI_API_KEY for a real one.)"
    ),
    found="Here is what I found:",
    did_not_run="{} did not run: {}",
    greeting="Hello! I'm glad you're here. What can I do for you today?",
    you_are="You are {}, as the page tells me.",
    page_says="Here is what the page tells me: {}.",
    cannot_answer=(
        "I'm the offline demo model, so I can't give “{}” the answer it deserves: set "
        "OPENAI_API_KEY and a real model will."
    ),
    can_help="Meanwhile, here is what I can do: {}.",
)

_TABLE = (
    ENGLISH,
    Phrases(
        language="French",
        you_said="Vous avez écrit : « {} ».",
        instructions_start="Mes instructions commencent par : « {} »",
        page_shared="La page a partagé : {}.",
        offline_note=(
            "(Cette réponse vient du modèle de démonstration hors ligne ; définissez "
            "OPENAI_API_KEY pour un vrai modèle.)"
        ),
        found="Voici ce que j'ai trouvé :",
        did_not_run="{} ne s'est pas exécuté : {}",
        greeting="Bonjour ! Ravi de vous voir. Que puis-je faire pour vous aujourd'hui ?",
        you_are="Vous êtes {}, d'après la page.",
        page_says="Voici ce que la page m'indique : {}.",
        cannot_answer=(
            "Je suis le modèle de démonstration hors ligne : je ne peux pas vraiment répondre à "
            "« {} ». Définissez OPENAI_API_KEY et un vrai modèle le fera."
        ),
        can_help="En attendant, voici ce que je sais faire : {}.",
    ),
    Phrases(
        language="Spanish",
        you_said="Usted escribió: «{}».",
        instructions_start="Mis instrucciones empiezan así: «{}»",
        page_shared="La página compartió: {}.",
        offline_note=(
            "(Esta respuesta viene del modelo de demostración sin conexión; defina "
            "OPENAI_API_KEY para usar un modelo real.)"
        ),
        found="Esto es lo que encontré:",
        did_not_run="{} no se ejecutó: {}",
        greeting="¡Hola! Me alegra verle por aquí. ¿Qué puedo hacer por usted hoy?",
        you_are="Usted es {}, según la página.",
        page_says="Esto es lo que me dice la página: {}.",
        cannot_answer=(
            "Soy el modelo de demostración sin conexión: no puedo responder de verdad a «{}». "
            "Defina OPENAI_API_KEY y un modelo real lo hará."
        ),
        can_help="Mientras tanto, esto es lo que sé hacer: {}.",
    ),
    Phrases(
        language="German",
        you_said="Sie schrieben: „{}“.",
        instructions_start="Meine Anweisungen beginnen mit: „{}“",
        page_shared="Die Seite teilte mit: {}.",
        offline_note=(
            "(Diese Antwort stammt vom Offline-Demomodell; setzen Sie OPENAI_API_KEY für ein "
            "echtes Modell.)"
        ),
        found="Das habe ich gefunden:",
        did_not_run="{} wurde nicht ausgeführt: {}",
        greeting="Hallo! Schön, dass Sie da sind. Was kann ich heute für Sie tun?",
        you_are="Sie sind {}, sagt mir die Seite.",
        page_says="Das teilt mir die Seite mit: {}.",
        cannot_answer=(
            "Ich bin das Offline-Demomodell und kann „{}“ nicht wirklich beantworten. Setzen "
            "Sie OPENAI_API_KEY, dann antwortet ein echtes Modell."
        ),
        can_help="Bis dahin kann ich Folgendes: {}.",
    ),
    Phrases(
        language="Italian",
        you_said="Hai scritto: «{}».",
        instructions_start="Le mie istruzioni iniziano così: «{}»",
        page_shared="La pagina ha condiviso: {}.",
        offline_note=(
            "(Questa risposta viene dal modello dimostrativo offline; imposta OPENAI_API_KEY "
            "per un modello reale.)"
        ),
        found="Ecco cosa ho trovato:",
        did_not_run="{} non è stato eseguito: {}",
        greeting="Ciao! Che piacere vederti. Cosa posso fare per te oggi?",
        you_are="Sei {}, secondo la pagina.",
        page_says="Ecco cosa mi dice la pagina: {}.",
        cannot_answer=(
            "Sono il modello dimostrativo offline: non posso davvero rispondere a «{}». Imposta "
            "OPENAI_API_KEY e lo farà un modello reale."
        ),
        can_help="Nel frattempo, ecco cosa so fare: {}.",
    ),
    Phrases(
        language="Portuguese",
        you_said="Você escreveu: «{}».",
        instructions_start="As minhas instruções começam assim: «{}»",
        page_shared="A página partilhou: {}.",
        offline_note=(
            "(Esta resposta vem do modelo de demonstração offline; defina OPENAI_API_KEY para "
            "um modelo real.)"
        ),
        found="Eis o que encontrei:",
        did_not_run="{} não foi executado: {}",
        greeting="Olá! Que bom vê-lo por aqui. O que posso fazer por si hoje?",
        you_are="Você é {}, segundo a página.",
        page_says="Eis o que a página me diz: {}.",
        cannot_answer=(
            "Sou o modelo de demonstração offline: não consigo responder de verdade a «{}». "
            "Defina OPENAI_API_KEY e um modelo real fá-lo-á."
        ),
        can_help="Entretanto, eis o que sei fazer: {}.",
    ),
)

# Each language by its English name, its own name and its ISO 639-1 code, without accents.
_ALIASES = {
    "english": "English",
    "en": "English",
    "french": "French",
    "francais": "French",
    "fr": "French",
    "spanish": "Spanish",
    "espanol": "Spanish",
    "castellano": "Spanish",
    "es": "Spanish",
    "german": "German",
    "deutsch": "German",
    "de": "German",
    "italian": "Italian",
    "italiano": "Italian",
    "it": "Italian",
    "portuguese": "Portuguese",
    "portugues": "Portuguese",
    "pt": "Portuguese",
}
_BY_NAME = {phrases.language: phrases for phrases in _TABLE}
_UNACCENTED = str.maketrans("çñéêèáàâãíóôõúü", "cneeeaaaaiooouu")


def reply_language(instructions: str) -> str | None:
    """The language named by "Always reply in <language>" in ``instructions``, if any."""
    match = _REPLY_LANGUAGE.search(instructions)
    return match.group(1) if match else None


def phrases_for(language: str | None) -> Phrases:
    """The phrases for ``language`` (a name or code, any case); English when it has none."""
    if language is None:
        return ENGLISH
    name = _ALIASES.get(language.strip().lower().translate(_UNACCENTED))
    if name is not None:
        return _BY_NAME[name]
    note = f"(The offline demo model has no {language} phrases, so it replies in English.)"
    return replace(ENGLISH, missing_note=note)
