/**
 * @module mail/catalog
 * The words of Earshot's messages in each language the operator may use: English and the intake
 * page's languages (the console has no catalog of its own; docs/decisions/mail.md). `{name}`
 * placeholders are filled by src/mail/messages.ts.
 */

/** One message: its subject, the paragraph before the link, the link's label, and the line after it. */
export type MessageWords = { subject: string; intro: string; action: string; after: string };
export type MessageKind = "invite" | "password_reset" | "test";
export type Words = Record<MessageKind, MessageWords> & { footer: string };

export const MAIL_CATALOG: Record<string, Words> = {
  en: {
    invite: {
      subject: "You are invited to {workspace} on Earshot",
      intro: "You have been invited to join the workspace {workspace} on Earshot as {role}.",
      action: "Accept the invitation",
      after: "This link works once and expires on {expires}. If you did not expect it, ignore this message.",
    },
    password_reset: {
      subject: "Reset your Earshot password",
      intro: "Someone asked to reset the password of your Earshot account {email}.",
      action: "Choose a new password",
      after: "This link works once and expires on {expires}. If you did not ask for it, ignore this message: your password stays as it is.",
    },
    test: {
      subject: "Earshot test message",
      intro: "This message shows that Earshot can send mail through its SMTP server.",
      action: "Open the console",
      after: "Sent on request by {actor}.",
    },
    footer: "Sent automatically by Earshot. Replies are not read.",
  },
  de: {
    invite: {
      subject: "Einladung zu {workspace} auf Earshot",
      intro: "Sie wurden eingeladen, dem Arbeitsbereich {workspace} auf Earshot als {role} beizutreten.",
      action: "Einladung annehmen",
      after: "Dieser Link funktioniert einmal und läuft am {expires} ab. Falls Sie ihn nicht erwartet haben, ignorieren Sie diese Nachricht.",
    },
    password_reset: {
      subject: "Earshot-Passwort zurücksetzen",
      intro: "Jemand hat angefragt, das Passwort Ihres Earshot-Kontos {email} zurückzusetzen.",
      action: "Neues Passwort wählen",
      after:
        "Dieser Link funktioniert einmal und läuft am {expires} ab. Falls Sie das nicht angefragt haben, ignorieren Sie diese Nachricht: Ihr Passwort bleibt unverändert.",
    },
    test: {
      subject: "Earshot-Testnachricht",
      intro: "Diese Nachricht zeigt, dass Earshot über seinen SMTP-Server E-Mails senden kann.",
      action: "Konsole öffnen",
      after: "Auf Anfrage von {actor} gesendet.",
    },
    footer: "Automatisch von Earshot gesendet. Antworten werden nicht gelesen.",
  },
  fr: {
    invite: {
      subject: "Invitation à {workspace} sur Earshot",
      intro: "Vous êtes invité·e à rejoindre l’espace de travail {workspace} sur Earshot en tant que {role}.",
      action: "Accepter l’invitation",
      after: "Ce lien ne fonctionne qu’une fois et expire le {expires}. Si vous ne l’attendiez pas, ignorez ce message.",
    },
    password_reset: {
      subject: "Réinitialiser votre mot de passe Earshot",
      intro: "Quelqu’un a demandé la réinitialisation du mot de passe de votre compte Earshot {email}.",
      action: "Choisir un nouveau mot de passe",
      after: "Ce lien ne fonctionne qu’une fois et expire le {expires}. Si vous n’avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.",
    },
    test: {
      subject: "Message de test Earshot",
      intro: "Ce message montre qu’Earshot peut envoyer des e-mails par son serveur SMTP.",
      action: "Ouvrir la console",
      after: "Envoyé à la demande de {actor}.",
    },
    footer: "Envoyé automatiquement par Earshot. Les réponses ne sont pas lues.",
  },
  es: {
    invite: {
      subject: "Invitación a {workspace} en Earshot",
      intro: "Le han invitado a unirse al espacio de trabajo {workspace} en Earshot como {role}.",
      action: "Aceptar la invitación",
      after: "Este enlace funciona una sola vez y caduca el {expires}. Si no lo esperaba, ignore este mensaje.",
    },
    password_reset: {
      subject: "Restablecer su contraseña de Earshot",
      intro: "Alguien pidió restablecer la contraseña de su cuenta de Earshot {email}.",
      action: "Elegir una contraseña nueva",
      after: "Este enlace funciona una sola vez y caduca el {expires}. Si no lo pidió, ignore este mensaje: su contraseña no cambia.",
    },
    test: {
      subject: "Mensaje de prueba de Earshot",
      intro: "Este mensaje muestra que Earshot puede enviar correo a través de su servidor SMTP.",
      action: "Abrir la consola",
      after: "Enviado a petición de {actor}.",
    },
    footer: "Enviado automáticamente por Earshot. Las respuestas no se leen.",
  },
  it: {
    invite: {
      subject: "Invito a {workspace} su Earshot",
      intro: "Sei stato invitato a unirti allo spazio di lavoro {workspace} su Earshot come {role}.",
      action: "Accetta l’invito",
      after: "Questo link funziona una sola volta e scade il {expires}. Se non te lo aspettavi, ignora questo messaggio.",
    },
    password_reset: {
      subject: "Reimposta la password di Earshot",
      intro: "Qualcuno ha chiesto di reimpostare la password del tuo account Earshot {email}.",
      action: "Scegli una nuova password",
      after: "Questo link funziona una sola volta e scade il {expires}. Se non l’hai chiesto, ignora questo messaggio: la password resta invariata.",
    },
    test: {
      subject: "Messaggio di prova di Earshot",
      intro: "Questo messaggio mostra che Earshot può inviare email tramite il suo server SMTP.",
      action: "Apri la console",
      after: "Inviato su richiesta di {actor}.",
    },
    footer: "Inviato automaticamente da Earshot. Le risposte non vengono lette.",
  },
  nl: {
    invite: {
      subject: "Uitnodiging voor {workspace} op Earshot",
      intro: "U bent uitgenodigd om lid te worden van de werkruimte {workspace} op Earshot als {role}.",
      action: "Uitnodiging aannemen",
      after: "Deze link werkt één keer en verloopt op {expires}. Verwachtte u hem niet, negeer dan dit bericht.",
    },
    password_reset: {
      subject: "Uw Earshot-wachtwoord opnieuw instellen",
      intro: "Iemand heeft gevraagd het wachtwoord van uw Earshot-account {email} opnieuw in te stellen.",
      action: "Nieuw wachtwoord kiezen",
      after: "Deze link werkt één keer en verloopt op {expires}. Vroeg u er niet om, negeer dan dit bericht: uw wachtwoord blijft ongewijzigd.",
    },
    test: {
      subject: "Testbericht van Earshot",
      intro: "Dit bericht laat zien dat Earshot mail kan versturen via zijn SMTP-server.",
      action: "Console openen",
      after: "Verstuurd op verzoek van {actor}.",
    },
    footer: "Automatisch verstuurd door Earshot. Antwoorden worden niet gelezen.",
  },
  pt: {
    invite: {
      subject: "Convite para {workspace} no Earshot",
      intro: "Você foi convidado para o espaço de trabalho {workspace} no Earshot como {role}.",
      action: "Aceitar o convite",
      after: "Este link funciona uma vez e expira em {expires}. Se não o esperava, ignore esta mensagem.",
    },
    password_reset: {
      subject: "Redefinir a sua senha do Earshot",
      intro: "Alguém pediu para redefinir a senha da sua conta Earshot {email}.",
      action: "Escolher uma nova senha",
      after: "Este link funciona uma vez e expira em {expires}. Se não o pediu, ignore esta mensagem: a sua senha continua a mesma.",
    },
    test: {
      subject: "Mensagem de teste do Earshot",
      intro: "Esta mensagem mostra que o Earshot consegue enviar e-mail pelo seu servidor SMTP.",
      action: "Abrir a consola",
      after: "Enviada a pedido de {actor}.",
    },
    footer: "Enviada automaticamente pelo Earshot. As respostas não são lidas.",
  },
  pl: {
    invite: {
      subject: "Zaproszenie do {workspace} w Earshot",
      intro: "Zaproszono Cię do obszaru roboczego {workspace} w Earshot w roli {role}.",
      action: "Przyjmij zaproszenie",
      after: "Ten link działa jeden raz i wygasa {expires}. Jeśli się go nie spodziewałeś, zignoruj tę wiadomość.",
    },
    password_reset: {
      subject: "Zresetuj hasło do Earshot",
      intro: "Ktoś poprosił o zresetowanie hasła do Twojego konta Earshot {email}.",
      action: "Ustaw nowe hasło",
      after: "Ten link działa jeden raz i wygasa {expires}. Jeśli to nie Ty, zignoruj tę wiadomość: hasło pozostaje bez zmian.",
    },
    test: {
      subject: "Wiadomość testowa Earshot",
      intro: "Ta wiadomość pokazuje, że Earshot może wysyłać pocztę przez swój serwer SMTP.",
      action: "Otwórz konsolę",
      after: "Wysłano na prośbę {actor}.",
    },
    footer: "Wysłano automatycznie przez Earshot. Odpowiedzi nie są czytane.",
  },
  ar: {
    invite: {
      subject: "دعوة إلى {workspace} على Earshot",
      intro: "تمت دعوتك للانضمام إلى مساحة العمل {workspace} على Earshot بدور {role}.",
      action: "قبول الدعوة",
      after: "يعمل هذا الرابط مرة واحدة وتنتهي صلاحيته في {expires}. إن لم تكن تتوقعه فتجاهل هذه الرسالة.",
    },
    password_reset: {
      subject: "إعادة تعيين كلمة مرور Earshot",
      intro: "طلب أحدهم إعادة تعيين كلمة مرور حسابك على Earshot ‏{email}.",
      action: "اختيار كلمة مرور جديدة",
      after: "يعمل هذا الرابط مرة واحدة وتنتهي صلاحيته في {expires}. إن لم تطلب ذلك فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي.",
    },
    test: {
      subject: "رسالة اختبار من Earshot",
      intro: "تُظهر هذه الرسالة أن Earshot يستطيع إرسال البريد عبر خادم SMTP الخاص به.",
      action: "فتح لوحة التحكم",
      after: "أُرسلت بطلب من {actor}.",
    },
    footer: "أُرسلت تلقائيًا من Earshot. لا تُقرأ الردود.",
  },
};

/** Right-to-left languages among the catalogs (the HTML part's `dir`). */
export const RTL = new Set(["ar"]);

/**
 * The catalog language for a BCP 47 tag or a POSIX locale (`de-CH`, `de_DE.UTF-8`), or null.
 */
export function mailLanguageOf(tag: string | null | undefined): string | null {
  const primary = (tag ?? "").toLowerCase().split(/[-_.@]/)[0] ?? "";
  return primary in MAIL_CATALOG ? primary : null;
}
