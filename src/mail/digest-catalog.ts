/**
 * @module mail/digest-catalog
 * The email digest's words (src/mail/digest.ts) in each mail language (src/mail/catalog.ts);
 * `{name}` placeholders are filled by the digest.
 */

/** One language's words of the digest. */
export type DigestWords = {
  subject_daily: string;
  subject_weekly: string;
  intro: string;
  responses: string;
  previous: string;
  completion: string;
  nps: string;
  sentiment: string;
  shift: string;
  themes: string;
  new_theme: string;
  open: string;
  settings: string;
  footer: string;
};

/** The digest's words per language; `{name}` placeholders are filled here. */
export const DIGEST_CATALOG: Record<string, DigestWords> = {
  en: {
    subject_daily: "Earshot daily digest: {workspace}, {until}",
    subject_weekly: "Earshot weekly digest: {workspace}, {since} – {until}",
    intro: "What your links collected in {workspace} from {since} to {until} (UTC).",
    responses: "Responses",
    previous: "previous period",
    completion: "Completion rate",
    nps: "NPS",
    sentiment: "Sentiment: {positive} positive, {neutral} neutral, {negative} negative",
    shift: "net sentiment {shift} points against the previous period",
    themes: "Top themes",
    new_theme: "new",
    open: "Open in the console",
    settings: "You receive this digest because you chose it in Settings › Your account; change it there:",
    footer: "Sent automatically by Earshot. Replies are not read.",
  },
  de: {
    subject_daily: "Earshot – tägliche Zusammenfassung: {workspace}, {until}",
    subject_weekly: "Earshot – wöchentliche Zusammenfassung: {workspace}, {since} – {until}",
    intro: "Was Ihre Links in {workspace} vom {since} bis {until} (UTC) gesammelt haben.",
    responses: "Antworten",
    previous: "Vorperiode",
    completion: "Abschlussrate",
    nps: "NPS",
    sentiment: "Stimmung: {positive} positiv, {neutral} neutral, {negative} negativ",
    shift: "Netto-Stimmung {shift} Punkte gegenüber der Vorperiode",
    themes: "Häufigste Themen",
    new_theme: "neu",
    open: "In der Konsole öffnen",
    settings: "Sie erhalten diese Zusammenfassung, weil Sie sie unter Einstellungen › Ihr Konto gewählt haben; dort können Sie sie ändern:",
    footer: "Automatisch von Earshot gesendet. Antworten werden nicht gelesen.",
  },
  fr: {
    subject_daily: "Résumé quotidien Earshot : {workspace}, {until}",
    subject_weekly: "Résumé hebdomadaire Earshot : {workspace}, {since} – {until}",
    intro: "Ce que vos liens ont recueilli dans {workspace} du {since} au {until} (UTC).",
    responses: "Réponses",
    previous: "période précédente",
    completion: "Taux d'achèvement",
    nps: "NPS",
    sentiment: "Sentiment : {positive} positif, {neutral} neutre, {negative} négatif",
    shift: "sentiment net {shift} points par rapport à la période précédente",
    themes: "Thèmes principaux",
    new_theme: "nouveau",
    open: "Ouvrir dans la console",
    settings: "Vous recevez ce résumé parce que vous l'avez choisi dans Paramètres › Votre compte ; modifiez-le ici :",
    footer: "Envoyé automatiquement par Earshot. Les réponses ne sont pas lues.",
  },
  es: {
    subject_daily: "Resumen diario de Earshot: {workspace}, {until}",
    subject_weekly: "Resumen semanal de Earshot: {workspace}, {since} – {until}",
    intro: "Lo que sus enlaces recogieron en {workspace} del {since} al {until} (UTC).",
    responses: "Respuestas",
    previous: "periodo anterior",
    completion: "Tasa de finalización",
    nps: "NPS",
    sentiment: "Sentimiento: {positive} positivo, {neutral} neutral, {negative} negativo",
    shift: "sentimiento neto {shift} puntos respecto al periodo anterior",
    themes: "Temas principales",
    new_theme: "nuevo",
    open: "Abrir en la consola",
    settings: "Recibe este resumen porque lo eligió en Ajustes › Su cuenta; cámbielo allí:",
    footer: "Enviado automáticamente por Earshot. Las respuestas no se leen.",
  },
  it: {
    subject_daily: "Riepilogo giornaliero Earshot: {workspace}, {until}",
    subject_weekly: "Riepilogo settimanale Earshot: {workspace}, {since} – {until}",
    intro: "Ciò che i vostri link hanno raccolto in {workspace} dal {since} al {until} (UTC).",
    responses: "Risposte",
    previous: "periodo precedente",
    completion: "Tasso di completamento",
    nps: "NPS",
    sentiment: "Sentiment: {positive} positivo, {neutral} neutro, {negative} negativo",
    shift: "sentiment netto {shift} punti rispetto al periodo precedente",
    themes: "Temi principali",
    new_theme: "nuovo",
    open: "Apri nella console",
    settings: "Ricevi questo riepilogo perché l'hai scelto in Impostazioni › Il tuo account; modificalo lì:",
    footer: "Inviato automaticamente da Earshot. Le risposte non vengono lette.",
  },
  nl: {
    subject_daily: "Dagelijks Earshot-overzicht: {workspace}, {until}",
    subject_weekly: "Wekelijks Earshot-overzicht: {workspace}, {since} – {until}",
    intro: "Wat uw links in {workspace} verzamelden van {since} tot {until} (UTC).",
    responses: "Reacties",
    previous: "vorige periode",
    completion: "Voltooiingsgraad",
    nps: "NPS",
    sentiment: "Sentiment: {positive} positief, {neutral} neutraal, {negative} negatief",
    shift: "netto sentiment {shift} punten ten opzichte van de vorige periode",
    themes: "Belangrijkste thema's",
    new_theme: "nieuw",
    open: "Openen in de console",
    settings: "U ontvangt dit overzicht omdat u het koos onder Instellingen › Uw account; wijzig het daar:",
    footer: "Automatisch verzonden door Earshot. Antwoorden worden niet gelezen.",
  },
  pt: {
    subject_daily: "Resumo diário do Earshot: {workspace}, {until}",
    subject_weekly: "Resumo semanal do Earshot: {workspace}, {since} – {until}",
    intro: "O que os seus links recolheram em {workspace} de {since} a {until} (UTC).",
    responses: "Respostas",
    previous: "período anterior",
    completion: "Taxa de conclusão",
    nps: "NPS",
    sentiment: "Sentimento: {positive} positivo, {neutral} neutro, {negative} negativo",
    shift: "sentimento líquido {shift} pontos face ao período anterior",
    themes: "Temas principais",
    new_theme: "novo",
    open: "Abrir na consola",
    settings: "Recebe este resumo porque o escolheu em Definições › A sua conta; altere-o lá:",
    footer: "Enviado automaticamente pelo Earshot. As respostas não são lidas.",
  },
  pl: {
    subject_daily: "Dzienne podsumowanie Earshot: {workspace}, {until}",
    subject_weekly: "Tygodniowe podsumowanie Earshot: {workspace}, {since} – {until}",
    intro: "Co zebrały Twoje linki w {workspace} od {since} do {until} (UTC).",
    responses: "Odpowiedzi",
    previous: "poprzedni okres",
    completion: "Wskaźnik ukończenia",
    nps: "NPS",
    sentiment: "Nastawienie: pozytywne {positive}, neutralne {neutral}, negatywne {negative}",
    shift: "nastawienie netto {shift} pkt względem poprzedniego okresu",
    themes: "Najczęstsze tematy",
    new_theme: "nowy",
    open: "Otwórz w konsoli",
    settings: "Otrzymujesz to podsumowanie, bo wybrałeś je w Ustawienia › Twoje konto; zmień je tam:",
    footer: "Wysłane automatycznie przez Earshot. Odpowiedzi nie są czytane.",
  },
  ar: {
    subject_daily: "ملخص Earshot اليومي: {workspace}، {until}",
    subject_weekly: "ملخص Earshot الأسبوعي: {workspace}، {since} – {until}",
    intro: "ما جمعته روابطك في {workspace} من {since} إلى {until} (UTC).",
    responses: "الردود",
    previous: "الفترة السابقة",
    completion: "معدل الإكمال",
    nps: "NPS",
    sentiment: "المشاعر: {positive} إيجابية، {neutral} محايدة، {negative} سلبية",
    shift: "صافي المشاعر {shift} نقطة مقارنة بالفترة السابقة",
    themes: "أبرز المواضيع",
    new_theme: "جديد",
    open: "افتح في لوحة التحكم",
    settings: "تصلك هذه الرسالة لأنك اخترتها في الإعدادات › حسابك؛ يمكنك تغييرها هناك:",
    footer: "أُرسلت تلقائيًا من Earshot. لا تتم قراءة الردود.",
  },
};
